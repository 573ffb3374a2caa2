"""an evaluation's items counted as they are written, so a status poll reads a few rows instead of every item

Tallies per stretch of 500 items of a run's matrix and per error class; items already stored are counted into
them here. Nothing else changes.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SLOT = 500  # app/store/tallies.py TALLY_SLOT when this was written


def upgrade() -> None:
    op.create_table(
        "item_tally",
        sa.Column("evaluation_id", sa.String(length=40), sa.ForeignKey("evaluation.id"), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("error_class", sa.String(length=40), nullable=False),
        sa.Column("written", sa.Integer(), nullable=False),
        sa.Column("graded", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("retries", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("evaluation_id", "slot", "error_class"),
    )
    op.execute(
        sa.text(
            "INSERT INTO item_tally (evaluation_id, slot, error_class, written, graded, passed, retries) "
            "SELECT evaluation_id, idx / :slot, COALESCE(error_class, ''), COUNT(*), "
            "SUM(CASE WHEN verdict IN ('PASS', 'PARTIAL', 'FAIL') THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN verdict = 'PASS' THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN attempts > 1 THEN attempts - 1 ELSE 0 END) "
            "FROM evaluation_item GROUP BY evaluation_id, idx / :slot, COALESCE(error_class, '')"
        ).bindparams(slot=SLOT)
    )


def downgrade() -> None:
    op.drop_table("item_tally")
