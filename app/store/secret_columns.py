"""Encrypted columns: by convention their names end in `_secret`; rotation rewrites every value in them."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine, select, update
from sqlmodel import SQLModel

from app.store import models as _models  # noqa: F401 - every table registered in the metadata


def secret_columns() -> list[tuple[str, str]]:
    """(table, column) of every encrypted column."""
    return [
        (table.name, column.name)
        for table in SQLModel.metadata.sorted_tables
        for column in table.columns
        if column.name.endswith("_secret")
    ]


def rewrite_secrets(*, engine: Engine, rewrite: Callable[[str, str], str]) -> dict[str, int]:
    """Replaces each stored secret with rewrite(where, token) in one transaction; returns counts per
    table.column. `where` names the table, column and row, never the value; an exception rolls all back."""
    counts: dict[str, int] = {}
    with engine.begin() as conn:
        for table_name, column_name in secret_columns():
            table = SQLModel.metadata.tables[table_name]
            column = table.c[column_name]
            pk = list(table.primary_key.columns)[0]
            rows = conn.execute(select(pk, column).where(column.is_not(None))).all()
            for ident, token in rows:
                fresh = rewrite(f"{table_name}.{column_name} of row {ident}", token)
                conn.execute(update(table).where(pk == ident).values({column_name: fresh}))
            counts[f"{table_name}.{column_name}"] = len(rows)
    return counts
