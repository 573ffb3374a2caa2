"""grade batches: uploaded free transcripts graded in the background, one row per line; webhook messages about
a batch (a message's subject is an evaluation or a grade batch)

Revision ID: 0011
Revises: 0008
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "grade_batch",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("team_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("lines", sa.Integer(), nullable=False),
        sa.Column("bad", sa.Integer(), nullable=False),
        sa.Column("graded", sa.Integer(), nullable=False),
        sa.Column("last_line", sa.Integer(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["team_id"], ["team.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_grade_batch_team_id", "grade_batch", ["team_id"])
    op.create_index("ix_grade_batch_status", "grade_batch", ["status"])
    op.create_table(
        "grade_batch_line",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("transcript", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("verdict", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True),
        sa.Column("error_field", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["batch_id"], ["grade_batch.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("batch_id", "line", name="uq_grade_batch_line"),
    )

    with op.batch_alter_table("webhook_message", schema=None) as batch_op:
        batch_op.alter_column(
            "evaluation_id", existing_type=sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True
        )
        batch_op.add_column(
            sa.Column("grade_batch_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True)
        )
        batch_op.create_foreign_key(
            "fk_webhook_message_grade_batch_id", "grade_batch", ["grade_batch_id"], ["id"]
        )
        batch_op.create_unique_constraint(
            "uq_webhook_message_batch_event", ["webhook_id", "grade_batch_id", "event_type"]
        )


def downgrade() -> None:
    op.execute(
        "DELETE FROM webhook_delivery WHERE message_id IN "
        "(SELECT id FROM webhook_message WHERE grade_batch_id IS NOT NULL)"
    )
    op.execute("DELETE FROM webhook_message WHERE grade_batch_id IS NOT NULL")
    with op.batch_alter_table("webhook_message", schema=None) as batch_op:
        batch_op.drop_constraint("uq_webhook_message_batch_event", type_="unique")
        batch_op.drop_constraint("fk_webhook_message_grade_batch_id", type_="foreignkey")
        batch_op.drop_column("grade_batch_id")
        batch_op.alter_column(
            "evaluation_id", existing_type=sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False
        )
    op.drop_table("grade_batch_line")
    op.drop_index("ix_grade_batch_status", table_name="grade_batch")
    op.drop_index("ix_grade_batch_team_id", table_name="grade_batch")
    op.drop_table("grade_batch")
