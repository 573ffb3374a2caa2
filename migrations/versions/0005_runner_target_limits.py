"""runner: per-target max tokens, timeout, per-minute limits, generic HTTP JSON template and reply pointer

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("target") as batch:
        batch.add_column(sa.Column("max_tokens", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("timeout_s", sa.Float(), nullable=True))
        batch.add_column(sa.Column("requests_per_minute", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("tokens_per_minute", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("request_template", sa.JSON(), nullable=True))
        batch.add_column(
            sa.Column("reply_pointer", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("target") as batch:
        for name in (
            "reply_pointer",
            "request_template",
            "tokens_per_minute",
            "requests_per_minute",
            "timeout_s",
            "max_tokens",
        ):
            batch.drop_column(name)
