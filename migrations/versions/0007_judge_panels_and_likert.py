"""grading: each panel judge's score per item, and the rules' own 1–5 grade (score and its parts)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("evaluation_item") as batch:
        batch.add_column(sa.Column("panel_scores", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("rules_score", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("likert", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("evaluation_item") as batch:
        batch.drop_column("likert")
        batch.drop_column("rules_score")
        batch.drop_column("panel_scores")
