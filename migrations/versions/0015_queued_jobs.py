"""queued jobs: the embedded default's queue in the database, claimed by a local worker under a lease

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AutoString = sqlmodel.sql.sqltypes.AutoString
UTCDateTime = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "queued_job",
        sa.Column("id", AutoString(length=120), nullable=False),
        sa.Column("kind", AutoString(length=10), nullable=False),
        sa.Column("subject_id", AutoString(length=40), nullable=False),
        sa.Column("shard", sa.Integer(), nullable=False),
        sa.Column("queued_at", UTCDateTime(), nullable=False),
        sa.Column("available_at", UTCDateTime(), nullable=False),
        sa.Column("holder", AutoString(length=200), nullable=True),
        sa.Column("lease_until", UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_queued_job_queued_at"), "queued_job", ["queued_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_queued_job_queued_at"), table_name="queued_job")
    op.drop_table("queued_job")
