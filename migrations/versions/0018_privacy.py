"""privacy: an append-only audit of reads and deletes, erased-transcript marks, per-team transcript retention

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AutoString = sqlmodel.sql.sqltypes.AutoString
UTCDateTime = sqlmodel.sql.sqltypes.UTCDateTime

# The audit must not be rewritten by the service it audits: the database itself refuses changes to its rows.
_PG_GUARD = """
CREATE FUNCTION audit_event_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit_event is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_event_no_change BEFORE UPDATE OR DELETE ON audit_event
    FOR EACH ROW EXECUTE FUNCTION audit_event_append_only();
"""
_SQLITE_GUARDS = (
    "CREATE TRIGGER audit_event_no_update BEFORE UPDATE ON audit_event "
    "BEGIN SELECT RAISE(ABORT, 'audit_event is append-only'); END",
    "CREATE TRIGGER audit_event_no_delete BEFORE DELETE ON audit_event "
    "BEGIN SELECT RAISE(ABORT, 'audit_event is append-only'); END",
)


def upgrade() -> None:
    op.create_table(
        "audit_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key_id", AutoString(length=40), nullable=True),
        sa.Column("team_id", AutoString(length=40), nullable=True),
        sa.Column("action", AutoString(length=40), nullable=False),
        sa.Column("object_type", AutoString(length=40), nullable=False),
        sa.Column("object_id", AutoString(length=80), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_audit_event_team_id", "audit_event", ["team_id", "id"], unique=False)
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_GUARD)
    else:
        for statement in _SQLITE_GUARDS:
            op.execute(statement)
    with op.batch_alter_table("team") as batch:
        batch.add_column(sa.Column("transcript_retention_days", sa.Integer(), nullable=True))
    for table in ("evaluation", "grade_batch"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("transcripts_deleted_at", UTCDateTime(), nullable=True))
            batch.add_column(sa.Column("transcripts_removed_after_days", sa.Integer(), nullable=True))


def downgrade() -> None:
    for table in ("grade_batch", "evaluation"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("transcripts_removed_after_days")
            batch.drop_column("transcripts_deleted_at")
    with op.batch_alter_table("team") as batch:
        batch.drop_column("transcript_retention_days")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER audit_event_no_change ON audit_event")
        op.execute("DROP FUNCTION audit_event_append_only()")
    op.drop_index("ix_audit_event_team_id", table_name="audit_event")
    op.drop_table("audit_event")
