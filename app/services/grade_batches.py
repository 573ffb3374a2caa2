"""Grade batches: a JSONL upload streamed line by line into the store, then read back as pages and exports.

The body never sits whole in memory: bytes are split into lines as they arrive, each line is validated as the
transcript POST /v1/grade takes, and every `grade_batch_chunk_lines` lines are written in one transaction.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.config import Settings
from app.errors import DomainError, NotFound, Stalled, TooLarge
from app.schemas import (  # the API shapes of a batch
    BadLine,
    BadLinesPage,
    BatchResult,
    BatchResultsPage,
    GradeBatchPublic,
)
from app.security.pii import Redactor
from app.services.grading import parse_transcript_line
from app.services.redaction import redact_transcript, redact_value
from app.store import grade_batches as store
from app.store import paging
from app.store.db import session_scope
from app.store.models import GradeBatch, GradeBatchLine
from app.store.retry import is_transient
from app.store.statuses import BATCH_DONE


def public_batch(batch: GradeBatch) -> GradeBatchPublic:
    return GradeBatchPublic(
        id=batch.id,
        status=batch.status,
        lines=batch.lines,
        graded=batch.graded,
        bad=batch.bad,
        error=batch.error,
    )


async def split_lines(
    chunks: AsyncIterator[bytes], *, max_line_bytes: int, idle_timeout_s: float
) -> AsyncIterator[tuple[int, bytes | None]]:
    """(line number, bytes) for each line as its bytes arrive; None for a line longer than max_line_bytes.

    A client that sends nothing for idle_timeout_s gets 408: an upload may take long, but never stall.
    """
    pending = bytearray()
    number, too_long = 0, False
    while True:
        try:
            async with asyncio.timeout(idle_timeout_s):
                chunk = await anext(chunks, None)
        except TimeoutError as exc:
            raise Stalled("body", f"no upload data for {idle_timeout_s:g} s") from exc
        if chunk is None:
            break
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            number += 1
            if too_long or len(pending) + end - start > max_line_bytes:
                yield number, None
            else:
                pending += chunk[start:end]
                yield number, bytes(pending)
            pending.clear()
            too_long, start = False, end + 1
        if not too_long:
            pending += chunk[start:]
            if len(pending) > max_line_bytes:
                too_long = True
                pending.clear()
    if too_long or pending.strip():
        yield number + 1, None if too_long else bytes(pending)


def line_row(
    number: int, raw: bytes | None, max_line_bytes: int, redactor: Redactor | None = None
) -> store.LineRow | None:
    """A stored line for what arrived: its transcript, or the refusal with its field; None for a blank line."""
    if raw is None:
        return store.LineRow(
            number, error_field="body", error=f"body: the line is longer than {max_line_bytes} bytes"
        )
    if not raw.strip():
        return None
    try:
        transcript = parse_transcript_line(raw)
    except DomainError as exc:
        return store.LineRow(number, error_field=exc.field, error=exc.detail)
    if redactor is not None:  # masked before it is stored: the clear text never reaches the database
        transcript, _ = redact_transcript(transcript, redactor)
    return store.LineRow(number, transcript=transcript.model_dump_json())


def _in_scope(engine: Engine, fn: Callable[..., Any], /, **kwargs: Any) -> Any:
    with session_scope(engine) as session:
        return fn(session=session, **kwargs)


async def ingest(
    *,
    chunks: AsyncIterator[bytes],
    engine: Engine,
    settings: Settings,
    team_id: str,
    redactor: Redactor | None = None,
) -> GradeBatch:
    """Store the upload in chunks and leave the batch queued; over the line limit, nothing is kept (413)."""
    batch_id: str = await run_in_threadpool(_in_scope, engine, _create, team_id=team_id)
    rows: list[store.LineRow] = []
    count = last = 0
    try:
        async for number, raw in split_lines(
            chunks, max_line_bytes=settings.max_body_bytes, idle_timeout_s=settings.body_timeout_s
        ):
            last = number
            row = line_row(number, raw, settings.max_body_bytes, redactor)
            if row is None:
                continue
            count += 1
            if count > settings.grade_batch_max_lines:
                raise TooLarge(
                    "body",
                    f"body: more than {settings.grade_batch_max_lines} lines; split the file",
                    limit=settings.grade_batch_max_lines,
                )
            rows.append(row)
            if len(rows) >= settings.grade_batch_chunk_lines:
                await run_in_threadpool(
                    _in_scope, engine, store.add_lines, batch_id=batch_id, rows=rows, last_line=last
                )
                rows = []
        await run_in_threadpool(
            _in_scope, engine, store.add_lines, batch_id=batch_id, rows=rows, last_line=last
        )
        await run_in_threadpool(_in_scope, engine, store.mark_queued, batch_id=batch_id)
    except BaseException:
        await asyncio.shield(run_in_threadpool(_in_scope, engine, store.discard_batch, batch_id=batch_id))
        raise
    return await run_in_threadpool(_in_scope, engine, _reload, batch_id=batch_id)


def _create(*, session: Session, team_id: str) -> str:
    return store.create_batch(session=session, team_id=team_id).id


def _reload(*, session: Session, batch_id: str) -> GradeBatch:
    batch = session.get(GradeBatch, batch_id)
    assert batch is not None
    session.expunge(batch)
    return batch


def get_batch(*, session: Session, team_id: str, batch_id: str) -> GradeBatch:
    """The team's batch; another team's is as unknown as a missing one (404)."""
    batch = store.get_batch(session=session, team_id=team_id, batch_id=batch_id)
    if batch is None:
        raise NotFound("batch_id", f"no grade batch {batch_id!r}")
    return batch


BY_LINE: paging.Cursor[int, GradeBatchLine] = paging.by_number(lambda row: row.line)


def _result(row: GradeBatchLine, redactor: Redactor | None) -> dict[str, Any]:
    """A line's stored grade, masked with the line's country as its numbering plan when a redactor is given."""
    result = row.result or {}
    if redactor is None:
        return result
    country = (row.transcript or {}).get("country")
    return redact_value(result, redactor, country if isinstance(country, str) else None)


def results_page(
    *,
    session: Session,
    batch: GradeBatch,
    cursor: str | None,
    limit: int,
    redactor: Redactor | None = None,
) -> BatchResultsPage:
    """Graded lines in line order; the cursor is the last line number seen, stable while grades arrive."""
    rows, next_cursor = paging.page(
        BY_LINE,
        lambda after, n: store.graded_page(
            session=session, batch_id=batch.id, after_line=after or 0, limit=n
        ),
        cursor,
        limit,
    )
    return BatchResultsPage(
        items=[BatchResult(line=r.line, result=_result(r, redactor)) for r in rows], next_cursor=next_cursor
    )


def bad_lines_page(*, session: Session, batch: GradeBatch, cursor: str | None, limit: int) -> BadLinesPage:
    rows, next_cursor = paging.page(
        BY_LINE,
        lambda after, n: store.bad_page(session=session, batch_id=batch.id, after_line=after or 0, limit=n),
        cursor,
        limit,
    )
    items = [BadLine(line=r.line, field=r.error_field, error=r.error or "") for r in rows]
    return BadLinesPage(items=items, next_cursor=next_cursor)


CSV_COLUMNS = ("line", "verdict", "likert_score", "likert_source", "reasons", "checks")


def _csv_row(row: GradeBatchLine, redactor: Redactor | None) -> list[Any]:
    result = _result(row, redactor)
    likert = result.get("likert") or {}
    return [
        row.line,
        result.get("verdict"),
        likert.get("score"),
        likert.get("source"),
        "; ".join(result.get("reasons") or []),
        json.dumps(result.get("checks") or {}, sort_keys=True),
    ]


def export_chunks(engine: Engine, batch_id: str, fmt: str, redactor: Redactor | None = None) -> Iterator[str]:
    """The graded lines as CSV or JSONL text, a page at a time (a streamed response's body), masked when a
    redactor is given."""
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(CSV_COLUMNS)
        for rows in store.graded_pages(engine, batch_id):
            writer.writerows(_csv_row(r, redactor) for r in rows)
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()
        return
    for rows in store.graded_pages(engine, batch_id):
        yield "".join(
            json.dumps({"line": r.line, **_result(r, redactor)}, ensure_ascii=False) + "\n" for r in rows
        )


def _status(engine: Engine, batch_id: str) -> GradeBatchPublic | None:
    with Session(engine) as session:
        batch = session.get(GradeBatch, batch_id)
        return public_batch(batch) if batch else None


async def progress_events(
    *, engine: Engine, batch_id: str, last_event_id: int | None, poll_s: float
) -> AsyncIterator[dict[str, Any]]:
    """`progress` when more lines are settled (graded or refused) than the client has seen, then one `end`.

    As for evaluations (app/services/events.py), the id is the count settled, so a reconnect with Last-Event-ID
    resumes rather than replays, and a poll the database cannot answer is skipped.
    """
    seen = last_event_id if last_event_id is not None else -1
    while True:
        try:
            status = await asyncio.to_thread(_status, engine, batch_id)
        except SQLAlchemyError as exc:
            if not is_transient(exc):
                raise
            await asyncio.sleep(poll_s)
            continue
        if status is None:
            return
        settled = status.graded + status.bad
        data = status.model_dump_json()
        if status.status in BATCH_DONE:
            yield {"event": "end", "id": str(settled), "data": data}
            return
        if settled > seen:
            yield {"event": "progress", "id": str(settled), "data": data, "retry": 1000}
            seen = settled
        await asyncio.sleep(poll_s)
