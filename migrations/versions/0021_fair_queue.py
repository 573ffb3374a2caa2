"""queued jobs carry a rank: a free place takes the lowest, so shards of evaluations interleave (app/queue/fair.py)

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("queued_job") as batch:
        batch.add_column(sa.Column("rank", sa.Integer(), nullable=False, server_default="0"))
    op.create_index(op.f("ix_queued_job_rank"), "queued_job", ["rank"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_queued_job_rank"), table_name="queued_job")
    with op.batch_alter_table("queued_job") as batch:
        batch.drop_column("rank")
