"""measured budgets: the calls and tokens an evaluation with caps has spent (or holds for items in flight), how
many of its items hold a share not yet written, and when its budget stopped it

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTCDateTime = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("calls_used", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("tokens_used", sa.BigInteger(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("budget_in_flight", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("budget_stopped_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.drop_column("budget_stopped_at")
        batch_op.drop_column("budget_in_flight")
        batch_op.drop_column("tokens_used")
        batch_op.drop_column("calls_used")
