"""trust: platform team flag, evaluation share_transcripts

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("team") as batch:
        batch.add_column(sa.Column("platform", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("evaluation") as batch:
        batch.add_column(
            sa.Column("share_transcripts", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # The embedded default's first team (named "default") is the platform team.
    op.execute(sa.text("UPDATE team SET platform = :t WHERE name = 'default'").bindparams(t=True))


def downgrade() -> None:
    with op.batch_alter_table("evaluation") as batch:
        batch.drop_column("share_transcripts")
    with op.batch_alter_table("team") as batch:
        batch.drop_column("platform")
