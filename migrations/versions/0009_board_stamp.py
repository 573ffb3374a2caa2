"""board: per-evaluation board figures (whole, per country, per condition) written with the report; a stamp per
benchmark version bumped with them

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "board_figures",
        sa.Column("evaluation_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("slice", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("figures", sa.JSON(), nullable=False),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["evaluation_id"], ["evaluation.id"]),
        sa.PrimaryKeyConstraint("evaluation_id", "slice"),
    )
    op.create_table(
        "board_stamp",
        sa.Column("benchmark_version", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("changes", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("benchmark_version"),
    )


def downgrade() -> None:
    op.drop_table("board_stamp")
    op.drop_table("board_figures")
