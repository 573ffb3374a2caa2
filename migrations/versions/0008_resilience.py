"""resilience: an evaluation's progress watch and stall reason; a lease so one process at a time reconciles

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("progress_done", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("idle_since", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("stalled", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("stalled_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.alter_column("progress_done", server_default=None)

    op.create_table(
        "service_lease",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("lease_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("service_lease")
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.drop_column("stalled_at")
        batch_op.drop_column("stalled")
        batch_op.drop_column("idle_since")
        batch_op.drop_column("progress_done")
