"""Grade batches: lines written in chunks as they are uploaded, graded once each, read back in line order."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import (
    JSON,
    ColumnElement,
    Dialect,
    Engine,
    Text,
    TypeDecorator,
    bindparam,
    cast,
    delete,
    insert,
    update,
)
from sqlmodel import Session, col, select

from app.store.bulk import pages, placeholders
from app.store.models import GradeBatch, GradeBatchLine, utcnow
from app.store.outbox import BATCH_COMPLETED_EVENT, queue_webhooks
from app.store.paging import detached_pages
from app.store.statuses import ACTIVE


@dataclass(frozen=True, slots=True)
class LineRow:
    """One uploaded line as the upload hands it to the store: a transcript (its JSON text), or why it was
    refused."""

    line: int
    transcript: str | None = None
    error_field: str | None = None
    error: str | None = None


class GradeRow(NamedTuple):
    """A line's grade as the job hands it to the store: the verdict, and the whole result as JSON text."""

    line: int
    verdict: str
    result: str


class JsonText(TypeDecorator[str]):
    """A JSON column's value given as JSON text the caller serialized (pydantic's serializer, several times
    faster than the JSON type's json.dumps of a dict): passed as it is, typed JSON for PostgreSQL."""

    impl = JSON
    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> None:  # type: ignore[override]
        return None


_LINES = GradeBatchLine.__table__  # Core statements: one executemany each, not the ORM's row by row
_ADD_LINE = insert(_LINES).values(  # type: ignore[arg-type]
    batch_id=bindparam("b_batch"),
    line=bindparam("b_line"),
    transcript=bindparam("b_transcript", type_=JsonText),
    error_field=bindparam("b_error_field"),
    error=bindparam("b_error"),
)


def create_batch(*, session: Session, team_id: str) -> GradeBatch:
    batch = GradeBatch(team_id=team_id)
    session.add(batch)
    session.flush()
    return batch


def get_batch(*, session: Session, team_id: str | None, batch_id: str) -> GradeBatch | None:
    """The batch if it exists and (when team_id is given) belongs to that team."""
    batch = session.get(GradeBatch, batch_id)
    if batch is None or (team_id is not None and batch.team_id != team_id):
        return None
    return batch


def lock_batch(*, session: Session, team_id: str | None, batch_id: str) -> GradeBatch | None:
    """As get_batch, its row held until the transaction ends (PostgreSQL), for an erase."""
    stmt = select(GradeBatch).where(GradeBatch.id == batch_id).with_for_update()
    batch = session.exec(stmt).first()
    if batch is None or (team_id is not None and batch.team_id != team_id):
        return None
    return batch


def add_lines(*, session: Session, batch_id: str, rows: Sequence[LineRow], last_line: int) -> None:
    """Write one chunk of uploaded lines in a single statement and count them on the batch."""
    if not rows:
        session.execute(update(GradeBatch).where(col(GradeBatch.id) == batch_id).values(last_line=last_line))
        return
    session.connection().execute(
        _ADD_LINE,
        [
            {
                "b_batch": batch_id,
                "b_line": r.line,
                "b_transcript": r.transcript,
                "b_error_field": r.error_field,
                "b_error": r.error,
            }
            for r in rows
        ],
    )
    bad = sum(r.error is not None for r in rows)
    session.execute(
        update(GradeBatch)
        .where(col(GradeBatch.id) == batch_id)
        .values(lines=GradeBatch.lines + len(rows), bad=GradeBatch.bad + bad, last_line=last_line)
    )


def discard_batch(*, session: Session, batch_id: str) -> None:
    """Remove a batch whose upload was refused (too many lines, the client went away)."""
    session.execute(delete(GradeBatchLine).where(col(GradeBatchLine.batch_id) == batch_id))
    session.execute(delete(GradeBatch).where(col(GradeBatch.id) == batch_id))


def mark_queued(*, session: Session, batch_id: str) -> None:
    """The upload is complete; a batch with no gradable line is done at once."""
    session.execute(
        update(GradeBatch)
        .where(col(GradeBatch.id) == batch_id, col(GradeBatch.status) == "uploading")
        .values(status="queued")
    )
    finish_if_complete(session=session, batch_id=batch_id)


def mark_running(*, session: Session, batch_id: str) -> bool:
    """queued → running; False when the batch is gone, still uploading or already finished."""
    batch = session.get(GradeBatch, batch_id)
    if batch is None or batch.status not in ACTIVE:
        return False
    session.execute(
        update(GradeBatch)
        .where(col(GradeBatch.id) == batch_id, col(GradeBatch.status) == "queued")
        .values(status="running", started_at=utcnow())
    )
    return True


def _ungraded(batch_id: str, after_line: int, up_to_line: int) -> tuple[ColumnElement[bool], ...]:
    """Valid lines in (after_line, up_to_line] that still wait for their grade."""
    return (
        col(GradeBatchLine.batch_id) == batch_id,
        col(GradeBatchLine.line) > after_line,
        col(GradeBatchLine.line) <= up_to_line,
        col(GradeBatchLine.result).is_(None),
        col(GradeBatchLine.error).is_(None),
    )


def ungraded_lines(
    *, session: Session, batch_id: str, after_line: int, up_to_line: int, limit: int
) -> list[tuple[int, str]]:
    """(line, transcript as JSON text) of the next valid lines without a grade, in line order after
    `after_line`, up to `up_to_line` (only the two columns a grader needs: a whole row drags its grade columns
    along; the text, not a dict, as the grader's validator parses JSON itself)."""
    stmt = (
        select(GradeBatchLine.line, cast(col(GradeBatchLine.transcript), Text))
        .where(*_ungraded(batch_id, after_line, up_to_line))
        .order_by(col(GradeBatchLine.line))
        .limit(limit)
    )
    return [(line, transcript) for line, transcript in session.exec(stmt)]


def has_ungraded(*, session: Session, batch_id: str, after_line: int, up_to_line: int) -> bool:
    """Whether any valid line in (after_line, up_to_line] still waits for its grade."""
    stmt = select(GradeBatchLine.line).where(*_ungraded(batch_id, after_line, up_to_line)).limit(1)
    return session.exec(stmt).first() is not None


_SAVE_GRADE = (
    update(_LINES)  # type: ignore[arg-type]
    .where(
        _LINES.c.batch_id == bindparam("b_batch"),  # type: ignore[attr-defined]
        _LINES.c.line == bindparam("b_line"),  # type: ignore[attr-defined]
        _LINES.c.result.is_(None),  # type: ignore[attr-defined]
    )
    .values(result=bindparam("b_result", type_=JsonText), verdict=bindparam("b_verdict"))
)


def save_grades(*, session: Session, batch_id: str, grades: Sequence[GradeRow]) -> int:
    """Write each line's grade where the line has none yet; returns how many were new, and counts them.

    SQLite: one UPDATE per page of lines (see app/store/bulk.py for why not an executemany). PostgreSQL: one
    statement executed for many rows (psycopg reports the summed row count of an executemany).
    """
    if not grades:
        return 0
    conn = session.connection()
    if conn.dialect.name == "sqlite":
        written = 0
        for page in pages(grades, len(GradeRow._fields)):
            values = [value for grade in page for value in grade]
            outcome = conn.exec_driver_sql(_fill_grades_text(len(page)), (*values, batch_id))
            written += outcome.rowcount
    else:
        outcome = conn.execute(
            _SAVE_GRADE,
            [
                {"b_batch": batch_id, "b_line": line, "b_result": result, "b_verdict": verdict}
                for line, verdict, result in grades
            ],
        )
        written = int(outcome.rowcount)  # type: ignore[attr-defined]
    if written:
        session.execute(
            update(GradeBatch)
            .where(col(GradeBatch.id) == batch_id)
            .values(graded=GradeBatch.graded + written)
        )
    return written


@functools.lru_cache(maxsize=64)
def _fill_grades_text(n_lines: int) -> str:
    """Lines' grades from a VALUES list of GradeRow (line, verdict, result text), each set only where the line has
    none yet; the batch id is the last parameter."""
    return (
        f"UPDATE {_LINES.name} SET verdict = v.column2, result = v.column3"
        f" FROM (VALUES {placeholders(len(GradeRow._fields), n_lines)}) AS v"
        f" WHERE {_LINES.name}.batch_id = ? AND {_LINES.name}.line = v.column1 AND {_LINES.name}.result IS NULL"
    )


def is_complete(*, session: Session, batch_id: str) -> bool:
    """Every line graded or refused, and the batch not settled yet."""
    batch = session.get(GradeBatch, batch_id)
    return batch is not None and batch.status in ACTIVE and batch.graded + batch.bad >= batch.lines


def finish_if_complete(
    *, session: Session, batch_id: str, summary: dict[str, Any] | None = None
) -> str | None:
    """When every valid line has its grade, settle the batch once and queue its `grade_batch.completed`
    webhooks in the same transaction."""
    batch = session.get(GradeBatch, batch_id)
    if batch is None or batch.status not in ACTIVE:
        return None
    session.refresh(batch)
    if batch.graded + batch.bad < batch.lines:
        return None
    result = session.execute(
        update(GradeBatch)
        .where(col(GradeBatch.id) == batch_id, col(GradeBatch.status).in_(ACTIVE))
        .values(status="succeeded", finished_at=utcnow(), summary=summary)
    )
    if not result.rowcount:  # type: ignore[attr-defined]
        return None
    queue_webhooks(
        session=session, grade_batch_id=batch_id, team_id=batch.team_id, event=BATCH_COMPLETED_EVENT
    )
    return "succeeded"


def graded_page(*, session: Session, batch_id: str, after_line: int, limit: int) -> list[GradeBatchLine]:
    """Graded lines in line order after `after_line` (the results cursor)."""
    return _page(session, batch_id, after_line, limit, col(GradeBatchLine.result).is_not(None))


PAGE_LINES = 1000  # lines held at once when every graded line is read (export, report): bounded memory


def graded_pages(engine: Engine, batch_id: str) -> Iterator[list[GradeBatchLine]]:
    """Every graded line, a page at a time, each page read in its own short session (no transaction held open
    across a long export)."""

    def fetch(session: Session, after: int) -> list[GradeBatchLine]:
        return graded_page(session=session, batch_id=batch_id, after_line=after, limit=PAGE_LINES)

    return detached_pages(engine, fetch, lambda row: row.line, 0)


def bad_page(*, session: Session, batch_id: str, after_line: int, limit: int) -> list[GradeBatchLine]:
    """Refused lines in line order after `after_line`."""
    return _page(session, batch_id, after_line, limit, col(GradeBatchLine.error).is_not(None))


def _page(
    session: Session, batch_id: str, after_line: int, limit: int, which: ColumnElement[bool]
) -> list[GradeBatchLine]:
    stmt = (
        select(GradeBatchLine)
        .where(GradeBatchLine.batch_id == batch_id, col(GradeBatchLine.line) > after_line, which)
        .order_by(col(GradeBatchLine.line))
        .limit(limit)
    )
    return list(session.exec(stmt))


def shard_count(last_line: int, shard_lines: int) -> int:
    return max(1, -(-last_line // shard_lines))


def active_batches(*, session: Session) -> list[tuple[str, int]]:
    """(id, last line) of batches uploaded and not yet graded in full (to queue again after a restart)."""
    stmt = select(GradeBatch.id, GradeBatch.last_line).where(col(GradeBatch.status).in_(ACTIVE))
    return [(batch_id, last) for batch_id, last in session.exec(stmt)]
