"""Many rows in few statements: SQLite gets one statement per page of rows, PostgreSQL a COPY.

Why SQLite: sqlite3 lets go of the interpreter lock around every statement step, and an executemany steps once a
row. With a busy event loop in the same process (a worker grading, the API serving) each step waits up to the 5 ms
switch interval to get the lock back: 128 item rows took ~1.1 s instead of ~3.5 ms, holding SQLite's one write
lock all the while, so every other writer (the API's included) queued behind it, past its busy timeout at worst.
One statement of many rows steps once. Its text is built here and cached per shape, since SQLAlchemy compiles a
multi-VALUES statement anew on every call (~0.5 ms a row); values go through the dialect's own bind processors,
so rows are stored exactly as SQLAlchemy stores them.

Why COPY on PostgreSQL: an executemany runs the INSERT once a row, each with its own bind and executor start on
the server; COPY streams the rows into one command (an item row: 79 -> 59 us of the server's CPU, 86 -> 57 us of
the writer's). COPY has no ON CONFLICT: rows that may meet a stored key (`unique`) go as INSERT ... ON CONFLICT DO
NOTHING. A caller that expects new keys copies first and, if the unique index refuses a row, writes the batch
again skipping stored keys (app/store/items.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import Connection, Dialect, Table
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects.postgresql import insert as pg_insert

R = TypeVar("R")
Processor = Callable[[Any], Any] | None

PAGE_PARAMETERS = 8_000  # bound parameters per statement, far below SQLite's 32,766


def insert_many(
    conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]], *, unique: tuple[str, ...] = ()
) -> Sequence[Mapping[str, Any]]:
    """Insert rows that all name the same columns; with `unique`, a row whose key is already stored is skipped.
    Returns the rows inserted (all of them, or those whose key was new), so a caller can count what it added."""
    if not rows:
        return []
    given = tuple(rows[0])
    defaults = _python_defaults(table, given)
    columns = given + tuple(defaults)
    processors = _bind_processors(conn.dialect, table, columns)
    if conn.dialect.name == "postgresql":
        if not unique:
            bound = (_bound({**row, **defaults} if defaults else row, columns, processors) for row in rows)
            _copy(conn, table.name, columns, bound)
            return rows
        stmt = pg_insert(table).on_conflict_do_nothing(index_elements=list(unique))
        stmt = stmt.returning(*(table.c[name] for name in unique))
        new = {tuple(key) for key in conn.execute(stmt, list(rows))}
        return _keyed(rows, unique, new)
    new_keys: set[tuple[Any, ...]] = set()
    for page in pages(rows, len(columns)):
        values: list[Any] = []
        for row in page:
            values.extend(_bound({**row, **defaults} if defaults else row, columns, processors))
        result = conn.exec_driver_sql(_insert_text(table.name, columns, len(page), unique), tuple(values))
        if unique:  # the keys of the rows inserted, from RETURNING: a stored key returns nothing
            new_keys.update(tuple(key) for key in result)
    return _keyed(rows, unique, new_keys) if unique else rows


def _keyed(
    rows: Sequence[Mapping[str, Any]], unique: tuple[str, ...], keys: set[tuple[Any, ...]]
) -> list[Mapping[str, Any]]:
    """The rows whose `unique` values are among `keys`, each key's first row only (the one a database keeps of
    two with one key)."""
    found = []
    for row in rows:
        key = tuple(row[name] for name in unique)
        if key in keys:
            keys.discard(key)
            found.append(row)
    return found


def _copy(conn: Connection, table: str, columns: tuple[str, ...], values: Iterable[list[Any]]) -> None:
    """COPY the rows' values in on the connection's driver, inside its transaction; a driver error is raised as
    SQLAlchemy raises it (a lost connection marked so and invalidated), so callers retry and roll back alike."""
    statement = _copy_text(table, columns)
    # psycopg's, loaded by the dialect: not imported here, so a process on SQLite never loads it
    driver_error = conn.dialect.loaded_dbapi.Error
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        with cursor.copy(statement) as copy:
            for row in values:
                copy.write_row(row)
    except driver_error as exc:
        lost = conn.dialect.is_disconnect(exc, conn.connection.dbapi_connection, cursor)
        if lost:
            conn.invalidate(exc)
        raise sa_exc.DBAPIError.instance(
            statement, None, exc, driver_error, connection_invalidated=lost, dialect=conn.dialect
        ) from exc
    finally:
        cursor.close()


def pages(rows: Sequence[R], width: int) -> Iterator[Sequence[R]]:
    """Rows in runs that bind at most PAGE_PARAMETERS values of `width` columns each: full pages, then what is
    left in runs of powers of two (100 rows: 64, 32, 4).

    Why powers of two: sqlite3 keeps each connection's last 128 prepared statements, one per distinct text, and a
    page of n rows is a text of its own. With batches of every size from 1 to 128 over a pool of up to 40
    connections, the prepared statements grew with the run: a 100,000-item run's peak RSS while items ran was
    387 MB, and is 270 MB with powers of two (`python -m bench.runner_e2e`, as `make bench` runs it). A table
    has at most a dozen shapes, for a few statements more per batch.
    """
    size = max(1, PAGE_PARAMETERS // max(width, 1))
    start, total = 0, len(rows)
    while start < total:
        left = total - start
        step = size if left >= size else 1 << (left.bit_length() - 1)
        yield rows[start : start + step]
        start += step


def _bound(row: Mapping[str, Any], columns: tuple[str, ...], processors: tuple[Processor, ...]) -> list[Any]:
    """The row's values for `columns`, each as the database driver is given it."""
    return [p(row[c]) if p else row[c] for c, p in zip(columns, processors, strict=True)]


@functools.lru_cache(maxsize=64)
def _bind_processors(dialect: Dialect, table: Table, columns: tuple[str, ...]) -> tuple[Processor, ...]:
    """What SQLAlchemy applies to each value: the processor of the dialect's form of the column's type."""
    return tuple(table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in columns)


def _python_defaults(table: Table, given: tuple[str, ...]) -> dict[str, Any]:
    """The columns the rows leave to a Python-side default (a created_at), with the value SQLAlchemy would give,
    taken once per call (a callable default takes an execution context, which none of ours reads)."""
    return {
        c.name: c.default.arg(None) if c.default.is_callable else c.default.arg  # type: ignore[attr-defined]
        for c in table.columns
        if c.name not in given and c.default is not None
    }


def placeholders(width: int, n_rows: int) -> str:
    """`(?, ?), (?, ?)`: n_rows groups of `width` positional parameters."""
    group = "(" + ", ".join("?" * width) + ")"
    return ", ".join([group] * n_rows)


@functools.lru_cache(maxsize=64)
def _copy_text(table: str, columns: tuple[str, ...]) -> str:
    return f'COPY "{table}" (' + ", ".join(f'"{name}"' for name in columns) + ") FROM STDIN"


@functools.lru_cache(maxsize=512)
def _insert_text(table: str, columns: tuple[str, ...], n_rows: int, unique: tuple[str, ...]) -> str:
    names = ", ".join(f'"{name}"' for name in columns)
    text = f'INSERT INTO "{table}" ({names}) VALUES {placeholders(len(columns), n_rows)}'
    if unique:
        text += " ON CONFLICT (" + ", ".join(f'"{name}"' for name in unique) + ") DO NOTHING"
        text += " RETURNING " + ", ".join(f'"{name}"' for name in unique)
    return text
