"""judge: an evaluation's own judge (config and encrypted key) and every raw judge answer per item

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("evaluation") as batch:
        batch.add_column(sa.Column("judge_config", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("judge_api_key_secret", sa.Text(), nullable=True))
    with op.batch_alter_table("evaluation_item") as batch:
        batch.add_column(sa.Column("judge", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("evaluation_item") as batch:
        batch.drop_column("judge")
    with op.batch_alter_table("evaluation") as batch:
        batch.drop_column("judge_api_key_secret")
        batch.drop_column("judge_config")
