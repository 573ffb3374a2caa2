"""Grade batches: lines written in chunks as they are uploaded, graded once each, read back in line order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, insert, update
from sqlmodel import Session, col, select

from app.store.models import GradeBatch, GradeBatchLine, utcnow
from app.webhooks.outbox import BATCH_COMPLETED_EVENT, queue_webhooks

ACTIVE = ("queued", "running")


@dataclass(frozen=True, slots=True)
class LineRow:
    """One uploaded line as the upload hands it to the store: a transcript, or why it was refused."""

    line: int
    transcript: dict[str, Any] | None = None
    error_field: str | None = None
    error: str | None = None


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


def add_lines(*, session: Session, batch_id: str, rows: Sequence[LineRow], last_line: int) -> None:
    """Write one chunk of uploaded lines in a single statement and count them on the batch."""
    if not rows:
        session.execute(update(GradeBatch).where(col(GradeBatch.id) == batch_id).values(last_line=last_line))
        return
    session.execute(
        insert(GradeBatchLine),
        [
            {
                "batch_id": batch_id,
                "line": r.line,
                "transcript": r.transcript,
                "error_field": r.error_field,
                "error": r.error,
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


def ungraded_lines(
    *, session: Session, batch_id: str, after_line: int, up_to_line: int, limit: int
) -> list[GradeBatchLine]:
    """The next valid lines without a grade, in line order after `after_line`, up to `up_to_line`."""
    stmt = (
        select(GradeBatchLine)
        .where(
            GradeBatchLine.batch_id == batch_id,
            col(GradeBatchLine.line) > after_line,
            col(GradeBatchLine.line) <= up_to_line,
            col(GradeBatchLine.result).is_(None),
            col(GradeBatchLine.error).is_(None),
        )
        .order_by(col(GradeBatchLine.line))
        .limit(limit)
    )
    return list(session.exec(stmt))


def save_grades(*, session: Session, batch_id: str, grades: Sequence[tuple[int, dict[str, Any]]]) -> int:
    """Write each (line, result) where the line has no grade yet; returns how many were new, and counts them."""
    written = 0
    for line, result in grades:
        outcome = session.execute(
            update(GradeBatchLine)
            .where(
                col(GradeBatchLine.batch_id) == batch_id,
                col(GradeBatchLine.line) == line,
                col(GradeBatchLine.result).is_(None),
            )
            .values(result=result, verdict=result.get("verdict"))
        )
        written += outcome.rowcount  # type: ignore[attr-defined]
    if written:
        session.execute(
            update(GradeBatch)
            .where(col(GradeBatch.id) == batch_id)
            .values(graded=GradeBatch.graded + written)
        )
    return written


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
