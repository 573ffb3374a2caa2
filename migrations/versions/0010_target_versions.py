"""target versions: immutable configurations of a target, the version each evaluation ran against; run plans
and budget caps on evaluations

Revision ID: 0010
Revises: 0008
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The columns a version snapshots (app.store.models.TARGET_CONFIG_FIELDS at the time of this migration).
CONFIG_FIELDS = (
    "name",
    "kind",
    "base_url",
    "model",
    "api_key_secret",
    "headers_secret",
    "params",
    "max_concurrency",
    "max_tokens",
    "timeout_s",
    "requests_per_minute",
    "tokens_per_minute",
    "request_template",
    "reply_pointer",
)

JSON_FIELDS = ("params", "request_template")


def upgrade() -> None:
    version_table = op.create_table(
        "target_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("target_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["target_id"], ["target.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("target_id", "version", name="uq_target_version"),
    )
    op.create_index(op.f("ix_target_version_target_id"), "target_version", ["target_id"], unique=False)
    with op.batch_alter_table("target", schema=None) as batch_op:
        batch_op.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="1"))
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("target_version", sa.Integer(), nullable=False, server_default="1"))
        batch_op.add_column(sa.Column("plan", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("max_calls", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("max_tokens", sa.Integer(), nullable=True))

    # Every existing target becomes version 1 of itself; existing evaluations ran against it (server default).
    target = sa.table(
        "target",
        sa.column("id"),
        sa.column("created_at", sqlmodel.sql.sqltypes.UTCDateTime()),
        *(sa.column(name, sa.JSON() if name in JSON_FIELDS else None) for name in CONFIG_FIELDS),
    )
    rows = op.get_bind().execute(sa.select(target)).mappings().all()
    op.bulk_insert(
        version_table,
        [
            {
                "target_id": row["id"],
                "version": 1,
                "config": {name: row[name] for name in CONFIG_FIELDS},
                "created_at": row["created_at"],
            }
            for row in rows
        ],
    )
    with op.batch_alter_table("target", schema=None) as batch_op:
        batch_op.alter_column("version", server_default=None)
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.alter_column("target_version", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("evaluation", schema=None) as batch_op:
        batch_op.drop_column("max_tokens")
        batch_op.drop_column("max_calls")
        batch_op.drop_column("plan")
        batch_op.drop_column("target_version")
    with op.batch_alter_table("target", schema=None) as batch_op:
        batch_op.drop_column("version")
    op.drop_index(op.f("ix_target_version_target_id"), table_name="target_version")
    op.drop_table("target_version")
