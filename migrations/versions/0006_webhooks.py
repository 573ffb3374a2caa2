"""webhooks: subscriptions, the outbox of messages, one row per delivery attempt

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhook",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("team_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("url", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("secret_secret", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("deleted_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["team.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_team_id"), ["team_id"], unique=False)

    op.create_table(
        "webhook_message",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("webhook_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("team_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("evaluation_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("event_type", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("lease_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["evaluation_id"],
            ["evaluation.id"],
        ),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["team.id"],
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhook.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("webhook_id", "evaluation_id", "event_type", name="uq_webhook_message_event"),
    )
    with op.batch_alter_table("webhook_message", schema=None) as batch_op:
        batch_op.create_index("ix_webhook_message_due", ["state", "next_attempt_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_message_webhook_id"), ["webhook_id"], unique=False)

    op.create_table(
        "webhook_delivery",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("webhook_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["webhook_message.id"],
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhook.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_delivery_message_id"), ["message_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_delivery_webhook_id"), ["webhook_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_delivery_webhook_id"))
        batch_op.drop_index(batch_op.f("ix_webhook_delivery_message_id"))

    op.drop_table("webhook_delivery")
    with op.batch_alter_table("webhook_message", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_message_webhook_id"))
        batch_op.drop_index("ix_webhook_message_due")

    op.drop_table("webhook_message")
    with op.batch_alter_table("webhook", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_team_id"))

    op.drop_table("webhook")
