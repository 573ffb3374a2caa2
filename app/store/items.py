"""Evaluation items: written once per key (a second write is a no-op), read back in pages."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal

from sqlalchemy import Connection, Engine, delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.benchmark.items import ItemSpec
from app.store import budget, tallies
from app.store.bulk import insert_many
from app.store.item_filter import ItemFilter
from app.store.models import Evaluation, EvaluationItem
from app.store.paging import detached_pages

ITEMS = EvaluationItem.__table__  # type: ignore[attr-defined]
ITEM_KEY = ("evaluation_id", "key")  # an item is written once per key


def insert_items(*, engine: Engine, rows: Sequence[dict[str, Any]], budgeted: int = 0) -> int:
    """Insert many items in one transaction, ignoring keys already written; returns rows inserted.

    `budgeted`: how many of the rows held a share of their evaluation's budget (app/store/budget.py); they stop
    counting as in flight in this same transaction.

    On PostgreSQL the rows are first copied as they are (COPY, the cheapest write): a shard looks up its stored
    keys when it starts, so a key already stored is rare (two holders of one shard after a lost lease). The unique
    index refuses one, which rolls the whole transaction back, and the batch is written again skipping stored keys.
    Why not a savepoint around every copy: two more round trips per batch, a share of a worker's CPU on every item
    for a rare case."""
    if not rows:
        return 0
    if engine.dialect.name != "postgresql":
        return _write(engine, rows, budgeted, unique=ITEM_KEY)
    try:
        return _write(engine, rows, budgeted, unique=())
    except IntegrityError:
        return _write(engine, rows, budgeted, unique=ITEM_KEY)


def _write(engine: Engine, rows: Sequence[dict[str, Any]], budgeted: int, unique: tuple[str, ...]) -> int:
    """One transaction of insert_items; `unique`: skip rows whose key is stored (else such a row raises)."""
    evaluation_id = rows[0]["evaluation_id"]
    with engine.begin() as conn:
        if _erased(conn, evaluation_id, lock="update" if budgeted else "share"):
            return 0  # deleted while its calls were in flight: what they answered is not kept
        inserted = insert_many(conn, ITEMS, rows, unique=unique)
        budget.written(conn=conn, evaluation_id=evaluation_id, items=budgeted)
        # SQLite's check above ran before this transaction took the write lock; now it holds it, look again
        # (PostgreSQL's row lock already keeps an erase out until this commits).
        if conn.dialect.name != "postgresql" and _erased(conn, evaluation_id, lock=None):
            conn.execute(delete(EvaluationItem).where(col(EvaluationItem.evaluation_id) == evaluation_id))
            return 0
        tallies.add(conn, evaluation_id, inserted)
    return len(inserted)


def _erased(conn: Connection, evaluation_id: str, *, lock: Literal["share", "update"] | None) -> bool:
    """Whether the evaluation is gone or its transcripts were erased. `lock` (PostgreSQL): hold its row against
    an erase until this transaction ends, so an erase waits for these rows, or these rows for the erase.

    Why a share lock: writers of one evaluation take it together, so workers writing the same run do not queue
    for its row (an exclusive lock made every item batch of a run wait for the one before it to commit). A
    writer that will update the row (its budget) takes the update lock at once: two share holders that both
    upgraded would deadlock."""
    stmt = select(Evaluation.transcripts_deleted_at).where(col(Evaluation.id) == evaluation_id)
    if lock and conn.dialect.name == "postgresql":
        stmt = stmt.with_for_update(read=lock == "share", key_share=lock == "update")
    row = conn.execute(stmt).first()
    return row is None or row[0] is not None


def existing_keys(
    *, session: Session, evaluation_id: str, keys: Iterable[str], within: tuple[int, int] | None = None
) -> set[str]:
    """The keys among `keys` already stored. `within` (first, last index): where their items lie when that is
    known (a shard's), so the lookup reads only that stretch of the run's index.

    Why: a run's table grows faster than PostgreSQL's statistics follow, and the planner then read every item
    of the run for each shard's keys (22 ms at 42,000 items: quadratic over a big run); by index range, 0.6 ms.
    Within a stretch the stored keys are read whole and matched here: a shard's 500 keys bound into the
    statement cost the worker ~4 ms of CPU at every shard's start, for a stretch that usually holds nothing."""
    wanted = set(keys)
    where = [col(EvaluationItem.evaluation_id) == evaluation_id]
    if within is not None:
        where += [col(EvaluationItem.idx) >= within[0], col(EvaluationItem.idx) <= within[1]]
        return wanted.intersection(session.exec(select(EvaluationItem.key).where(*where)))
    found: set[str] = set()
    ordered = list(wanted)
    for start in range(0, len(ordered), 900):  # stay under SQLite's bound-parameter limit
        chunk = ordered[start : start + 900]
        found.update(
            session.exec(select(EvaluationItem.key).where(*where, col(EvaluationItem.key).in_(chunk)))
        )
    return found


def shard_counts(
    *, session: Session, evaluation_id: str, shard_size: int, from_shard: int = 0
) -> dict[int, int]:
    """Items written per shard (shard = position // shard_size) from `from_shard` on, on the (evaluation_id, idx)
    index: a caller that knows the shards before it whole reads only the stretch of the run still moving."""
    shard = col(EvaluationItem.idx) // shard_size
    stmt = (
        select(shard, func.count())
        .where(
            EvaluationItem.evaluation_id == evaluation_id, col(EvaluationItem.idx) >= from_shard * shard_size
        )
        .group_by(shard)
    )
    return {int(s): int(n) for s, n in session.exec(stmt)}


def page_items(
    *, session: Session, evaluation_id: str, after_idx: int, limit: int, where: ItemFilter | None = None
) -> list[EvaluationItem]:
    """Items in matrix order after a position, only those `where` selects; the cursor is that position, so a
    filtered page starts after the last item it showed whatever the filter skipped."""
    stmt = (
        select(EvaluationItem)
        .where(
            EvaluationItem.evaluation_id == evaluation_id,
            EvaluationItem.idx > after_idx,
            *(where.conditions() if where else ()),
        )
        .order_by(col(EvaluationItem.idx))
        .limit(limit)
    )
    return list(session.exec(stmt))


def verdict_counts(
    *, session: Session, evaluation_id: str, where: ItemFilter | None = None
) -> dict[str | None, int]:
    """How many of the items `where` selects have each verdict (None: not graded yet)."""
    verdict = col(EvaluationItem.verdict)
    stmt = (
        select(verdict, func.count())
        .where(EvaluationItem.evaluation_id == evaluation_id, *(where.conditions() if where else ()))
        .group_by(verdict)
    )
    return {v: int(n) for v, n in session.exec(stmt)}


EXPORT_PAGE = 500  # items held at once while an export streams: bounded memory whatever the evaluation's size


def item_pages(
    engine: Engine, evaluation_id: str, where: ItemFilter | None = None, size: int | None = None
) -> Iterator[list[EvaluationItem]]:
    """Every item `where` selects in matrix order, a page at a time, each read in its own short session (no
    transaction held open while a client downloads slowly)."""

    def fetch(session: Session, after: int) -> list[EvaluationItem]:
        return page_items(
            session=session,
            evaluation_id=evaluation_id,
            after_idx=after,
            limit=size or EXPORT_PAGE,
            where=where,
        )

    return detached_pages(engine, fetch, lambda row: row.idx, -1)


def all_items(*, session: Session, evaluation_id: str) -> list[EvaluationItem]:
    stmt = select(EvaluationItem).where(EvaluationItem.evaluation_id == evaluation_id)
    return list(session.exec(stmt.order_by(col(EvaluationItem.idx))))


def item_spec(row: EvaluationItem) -> ItemSpec:
    """The cell a stored row answers, of the kind stored with it, so it can be resolved against the library."""
    return ItemSpec(
        row.idx,
        row.key,
        row.scenario_id,
        row.condition_id,
        row.user_context_id,
        row.perturbation_id,
        row.repeat,
        row.item_kind,
    )


def first_item_kind(*, session: Session, evaluation_id: str) -> str | None:
    """The kind stored with the evaluation's first item (one suite runs one kind), None before any is written;
    read on the (evaluation_id, idx) index."""
    stmt = (
        select(EvaluationItem.item_kind)
        .where(EvaluationItem.evaluation_id == evaluation_id)
        .order_by(col(EvaluationItem.idx))
        .limit(1)
    )
    return session.exec(stmt).first()


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
    EvaluationItem.judge_outcomes,
    EvaluationItem.item_kind,
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
