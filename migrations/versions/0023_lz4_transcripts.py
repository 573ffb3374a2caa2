"""transcripts and grades compressed with lz4 on PostgreSQL, not pglz

An item row holds the conversation sent (its system prompt included) and the grade's details: about 3.5 kB, over
PostgreSQL's 2 kB threshold, so every insert compresses it. pglz made that most of the server's CPU per stored
item; lz4 does the same job in a fraction of the time (item inserts measured 102 -> 79 us of server CPU a row on
the real full suite's rows, tables otherwise alike). Only values written from now on change; a server built
without lz4 (or older than PostgreSQL 14) keeps pglz. Nothing changes on SQLite.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# the tables whose rows carry transcripts or grades: every text and JSON column of each
TABLES = ("evaluation_item", "grade_batch_line", "evaluation")


def _compressible() -> list[tuple[str, str]]:
    """(table, column) of every text and JSON column of TABLES, where this server can compress with lz4."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return []
    lz4 = bind.execute(
        sa.text("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
    ).scalar()
    if not lz4:
        return []
    rows = bind.execute(
        sa.text(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = ANY(:tables)"
            " AND data_type IN ('json', 'jsonb', 'text') ORDER BY table_name, ordinal_position"
        ).bindparams(tables=list(TABLES))
    ).all()
    return [(str(table), str(column)) for table, column in rows]


def _set(method: str) -> None:
    by_table: dict[str, list[str]] = {}
    for table, column in _compressible():
        by_table.setdefault(table, []).append(column)
    for table, columns in by_table.items():
        clauses = ", ".join(f'ALTER COLUMN "{column}" SET COMPRESSION {method}' for column in columns)
        op.execute(f'ALTER TABLE "{table}" {clauses}')


def upgrade() -> None:
    _set("lz4")


def downgrade() -> None:
    _set("default")
