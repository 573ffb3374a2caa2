"""simulated users: an evaluation's simulator (endpoint and conversation rules) and its sealed key

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("simulator_config", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("simulator_api_key_secret", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.drop_column("simulator_api_key_secret")
        batch_op.drop_column("simulator_config")
