"""Evaluation items: written once per key (a second write is a no-op), read back in pages."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, Engine, func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlmodel import Session, col, select

from app.benchmark.items import ItemSpec
from app.store import budget
from app.store.models import EvaluationItem


def insert_items(*, engine: Engine, rows: Sequence[dict[str, Any]], budgeted: int = 0) -> int:
    """Insert many items in one transaction, ignoring keys already written; returns rows inserted.

    `budgeted`: how many of the rows held a share of their evaluation's budget (app/store/budget.py); they stop
    counting as in flight in this same transaction."""
    if not rows:
        return 0
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            inserted = _insert_sqlite(conn, rows)
        else:
            # executemany with one cached statement, not .values(rows): a multi-VALUES statement is compiled
            # anew for every batch (~0.5 ms a row); psycopg sends an executemany as one pipeline.
            stmt = (
                pg_insert(EvaluationItem)
                .on_conflict_do_nothing(index_elements=["evaluation_id", "key"])
                .execution_options(preserve_rowcount=True)  # an INSERT's rowcount is dropped otherwise
            )
            inserted = max(int(conn.execute(stmt, list(rows)).rowcount or 0), 0)
        budget.written(conn=conn, evaluation_id=rows[0]["evaluation_id"], items=budgeted)
    return inserted


SQLITE_PAGE_ROWS = 256  # rows per INSERT: 25 columns each stays far below SQLite's 32,766 bound parameters


def _insert_sqlite(conn: Connection, rows: Sequence[dict[str, Any]]) -> int:
    """Rows in INSERTs of up to SQLITE_PAGE_ROWS rows each, not an executemany.

    Why: sqlite3 lets go of the interpreter lock around every statement step, and an executemany steps once a
    row. With a busy event loop in the same process (the in-process runner grading, the API serving) every step
    waits up to the 5 ms switch interval to get it back: 128 rows took ~1 s instead of ~3 ms, holding SQLite's
    one write lock all that time, so every other write (the API's included) queued behind it. One statement
    per page steps once. The text is built here and cached per shape, because SQLAlchemy compiles a
    multi-VALUES insert anew on every call (~0.5 ms a row); values go through the columns' own bind processors,
    so they are stored exactly as SQLAlchemy stores them.
    """
    given = tuple(rows[0])
    defaults = _python_defaults(given)
    columns = given + tuple(defaults)
    processors = _bind_processors(conn.dialect, columns)
    inserted = 0
    for start in range(0, len(rows), SQLITE_PAGE_ROWS):
        page = rows[start : start + SQLITE_PAGE_ROWS]
        values: list[Any] = []
        for row in page:
            full = {**row, **defaults} if defaults else row
            values.extend(p(full[c]) if p else full[c] for c, p in zip(columns, processors, strict=True))
        inserted += max(
            conn.exec_driver_sql(_sqlite_insert_text(columns, len(page)), tuple(values)).rowcount, 0
        )
    return inserted


def _python_defaults(given: tuple[str, ...]) -> dict[str, Any]:
    """The columns the rows leave to a Python-side default (created_at), with the value SQLAlchemy would give,
    taken once per batch (a callable default takes an execution context, which none of ours reads)."""
    table = EvaluationItem.__table__  # type: ignore[attr-defined]
    return {
        c.name: c.default.arg(None) if c.default.is_callable else c.default.arg
        for c in table.columns
        if c.name not in given and c.default is not None
    }


@functools.lru_cache(maxsize=16)
def _bind_processors(dialect: Dialect, columns: tuple[str, ...]) -> tuple[Callable[[Any], Any] | None, ...]:
    """What SQLAlchemy applies to each value: the processor of the dialect's form of the column's type."""
    table = EvaluationItem.__table__  # type: ignore[attr-defined]
    return tuple(table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in columns)


@functools.lru_cache(maxsize=SQLITE_PAGE_ROWS + 8)
def _sqlite_insert_text(columns: tuple[str, ...], n_rows: int) -> str:
    names = ", ".join(f'"{name}"' for name in columns)
    row = "(" + ", ".join("?" * len(columns)) + ")"
    return (
        f"INSERT INTO {EvaluationItem.__tablename__} ({names}) VALUES {', '.join([row] * n_rows)}"
        " ON CONFLICT (evaluation_id, key) DO NOTHING"
    )


def existing_keys(*, session: Session, evaluation_id: str, keys: Iterable[str]) -> set[str]:
    wanted = list(keys)
    found: set[str] = set()
    for start in range(0, len(wanted), 900):  # stay under SQLite's bound-parameter limit
        chunk = wanted[start : start + 900]
        stmt = select(EvaluationItem.key).where(
            EvaluationItem.evaluation_id == evaluation_id, col(EvaluationItem.key).in_(chunk)
        )
        found.update(session.exec(stmt))
    return found


def shard_counts(*, session: Session, evaluation_id: str, shard_size: int) -> dict[int, int]:
    """Items written per shard (shard = position // shard_size), on the (evaluation_id, idx) index."""
    shard = col(EvaluationItem.idx) // shard_size
    stmt = select(shard, func.count()).where(EvaluationItem.evaluation_id == evaluation_id).group_by(shard)
    return {int(s): int(n) for s, n in session.exec(stmt)}


def page_items(*, session: Session, evaluation_id: str, after_idx: int, limit: int) -> list[EvaluationItem]:
    """Items in matrix order after a position; the cursor is that position."""
    stmt = (
        select(EvaluationItem)
        .where(EvaluationItem.evaluation_id == evaluation_id, EvaluationItem.idx > after_idx)
        .order_by(col(EvaluationItem.idx))
        .limit(limit)
    )
    return list(session.exec(stmt))


def all_items(*, session: Session, evaluation_id: str) -> list[EvaluationItem]:
    stmt = select(EvaluationItem).where(EvaluationItem.evaluation_id == evaluation_id)
    return list(session.exec(stmt.order_by(col(EvaluationItem.idx))))


def item_spec(row: EvaluationItem) -> ItemSpec:
    """The matrix cell a stored row answers, so it can be resolved against the library again."""
    return ItemSpec(
        row.idx,
        row.key,
        row.scenario_id,
        row.condition_id,
        row.user_context_id,
        row.perturbation_id,
        row.repeat,
    )


def find_item(*, session: Session, evaluation_id: str, key: str) -> EvaluationItem | None:
    """The evaluation's item with that key, or None."""
    stmt = select(EvaluationItem).where(
        EvaluationItem.evaluation_id == evaluation_id, EvaluationItem.key == key
    )
    return session.exec(stmt).first()


def first_with_verdicts(
    *, session: Session, evaluation_id: str, verdicts: Sequence[str], limit: int
) -> tuple[list[EvaluationItem], int]:
    """The first `limit` items with one of these verdicts in matrix order, and how many there are in all."""
    where = (col(EvaluationItem.evaluation_id) == evaluation_id, col(EvaluationItem.verdict).in_(verdicts))
    total = session.exec(select(func.count()).select_from(EvaluationItem).where(*where)).one()
    stmt = select(EvaluationItem).where(*where).order_by(col(EvaluationItem.idx)).limit(limit)
    return list(session.exec(stmt)), int(total)


# The columns the report reads, in this order; no messages or reply text, which dwarf them.
REPORT_COLUMNS = (
    EvaluationItem.key,
    EvaluationItem.scenario_id,
    EvaluationItem.condition_id,
    EvaluationItem.user_context_id,
    EvaluationItem.perturbation_id,
    EvaluationItem.repeat,
    EvaluationItem.verdict,
    EvaluationItem.score,
    EvaluationItem.checks,
    EvaluationItem.error_class,
    EvaluationItem.rules_score,
    EvaluationItem.panel_scores,
)


def report_rows(*, session: Session, evaluation_id: str) -> Iterator[tuple[Any, ...]]:
    """REPORT_COLUMNS of the evaluation's items in matrix order, streamed in batches so a large evaluation's
    rows are never all in memory at once."""
    stmt = select(*REPORT_COLUMNS).where(EvaluationItem.evaluation_id == evaluation_id)
    # Core, not the ORM: plain column tuples need no ORM loading, which took half the fetch (0.15 -> 0.07 s for
    # the full suite's 14,008 rows).
    rows = session.connection().execute(
        stmt.order_by(col(EvaluationItem.idx)).execution_options(yield_per=2000)
    )
    yield from rows
