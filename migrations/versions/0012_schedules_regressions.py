"""schedules and regressions: recurring evaluations, the tick that started one, the regressions found

Revision ID: 0012
Revises: 0008
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AutoString = sqlmodel.sql.sqltypes.AutoString
UTCDateTime = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("schedule_id", AutoString(length=40), nullable=True))
        batch_op.add_column(sa.Column("scheduled_for", UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("baseline_evaluation_id", AutoString(length=40), nullable=True))
        batch_op.create_index("uq_evaluation_schedule_tick", ["schedule_id", "scheduled_for"], unique=True)

    op.create_table(
        "schedule",
        sa.Column("id", AutoString(length=40), nullable=False),
        sa.Column("team_id", AutoString(length=40), nullable=False),
        sa.Column("target_id", AutoString(length=40), nullable=False),
        sa.Column("suite", AutoString(length=40), nullable=False),
        sa.Column("repeats", sa.Integer(), nullable=False),
        sa.Column("cron", AutoString(length=200), nullable=True),
        sa.Column("every_minutes", sa.Integer(), nullable=True),
        sa.Column("baseline", AutoString(length=40), nullable=False),
        sa.Column("alert", sa.JSON(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("next_run_at", UTCDateTime(), nullable=False),
        sa.Column("last_run_at", UTCDateTime(), nullable=True),
        sa.Column("last_evaluation_id", AutoString(length=40), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("deleted_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["target_id"], ["target.id"]),
        sa.ForeignKeyConstraint(["team_id"], ["team.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_schedule_team_id"), "schedule", ["team_id"], unique=False)
    op.create_index(op.f("ix_schedule_next_run_at"), "schedule", ["next_run_at"], unique=False)

    op.create_table(
        "regression",
        sa.Column("id", AutoString(length=40), nullable=False),
        sa.Column("team_id", AutoString(length=40), nullable=False),
        sa.Column("evaluation_id", AutoString(length=40), nullable=False),
        sa.Column("baseline_evaluation_id", AutoString(length=40), nullable=False),
        sa.Column("schedule_id", AutoString(length=40), nullable=True),
        sa.Column("metric", AutoString(length=80), nullable=False),
        sa.Column("test", AutoString(length=20), nullable=False),
        sa.Column("baseline_value", sa.Float(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("difference", sa.Float(), nullable=False),
        sa.Column("ci_low", sa.Float(), nullable=True),
        sa.Column("ci_high", sa.Float(), nullable=True),
        sa.Column("p_value", sa.Float(), nullable=False),
        sa.Column("p_adjusted", sa.Float(), nullable=False),
        sa.Column("n_pairs", sa.Integer(), nullable=False),
        sa.Column("flipped_keys", sa.JSON(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["evaluation_id"], ["evaluation.id"]),
        sa.ForeignKeyConstraint(["team_id"], ["team.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("evaluation_id", "metric", name="uq_regression_metric"),
    )
    op.create_index(op.f("ix_regression_evaluation_id"), "regression", ["evaluation_id"], unique=False)
    op.create_index("ix_regression_team_created", "regression", ["team_id", "created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_regression_team_created", table_name="regression")
    op.drop_index(op.f("ix_regression_evaluation_id"), table_name="regression")
    op.drop_table("regression")
    op.drop_index(op.f("ix_schedule_next_run_at"), table_name="schedule")
    op.drop_index(op.f("ix_schedule_team_id"), table_name="schedule")
    op.drop_table("schedule")
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.drop_index("uq_evaluation_schedule_tick")
        batch_op.drop_column("baseline_evaluation_id")
        batch_op.drop_column("scheduled_for")
        batch_op.drop_column("schedule_id")
