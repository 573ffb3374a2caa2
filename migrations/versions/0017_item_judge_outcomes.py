"""items keep each panel judge's outcome (scored, refused, unavailable, ...) for the report's judges section

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("evaluation_item") as batch:
        batch.add_column(sa.Column("judge_outcomes", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("evaluation_item") as batch:
        batch.drop_column("judge_outcomes")
