"""Grade a batch's lines: the one job both queues run (an asyncio task embedded, an arq job with workers).

Re-entrant by design: each pass reads only lines that have no grade yet and a grade is written only where none
is, so a job run twice (a worker died, the queue was replayed) costs repeated grading, never a second row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import structlog
from sqlmodel import Session

from app.grading.grader import Grader, judge_configs_from_settings
from app.grading.transcript import Transcript
from app.runner.deps import EngineDeps
from app.services.grade_batch_report import compute_summary
from app.services.grading import result_of
from app.store import grade_batches as store
from app.store.retry import db_call

T = TypeVar("T")
log = structlog.get_logger("helmbench.runner")
# Judge calls in flight at once while one chunk is graded; rules-only grading does not wait on anything.
JUDGE_CONCURRENCY = 16


def _next_lines(
    *, session: Session, batch_id: str, after_line: int, up_to_line: int, limit: int
) -> list[tuple[int, Any]]:
    rows = store.ungraded_lines(
        session=session, batch_id=batch_id, after_line=after_line, up_to_line=up_to_line, limit=limit
    )
    return [(r.line, r.transcript) for r in rows]


async def _call(deps: EngineDeps, fn: Callable[..., T], /, **kwargs: Any) -> T:
    def in_session() -> T:
        with Session(deps.engine) as session:
            out = fn(session=session, **kwargs)
            session.commit()
            return out

    return await db_call(deps.settings.db_retry_s, in_session)


async def _grade_chunk(grader: Grader, lines: list[tuple[int, Any]]) -> list[tuple[int, dict[str, Any]]]:
    slots = asyncio.Semaphore(JUDGE_CONCURRENCY)

    async def one(line: int, raw: Any) -> tuple[int, dict[str, Any]]:
        async with slots:
            grade = await grader.grade_transcript(Transcript.model_validate(raw))
        return line, result_of(grade).model_dump(mode="json")

    return list(await asyncio.gather(*(one(line, raw) for line, raw in lines)))


async def run_grade_batch(deps: EngineDeps, batch_id: str, shard: int) -> str:
    """Grade the shard's ungraded lines in chunks, then settle the batch if it is done; returns what happened.

    A chunk's grades are written while the next chunk is graded: grading is CPU on this loop, writing waits on
    the database in a thread, so the two overlap.
    """
    if not await _call(deps, store.mark_running, batch_id=batch_id):
        return "not active"
    settings = deps.settings
    after, up_to = shard * settings.grade_batch_shard_lines, (shard + 1) * settings.grade_batch_shard_lines
    writing: asyncio.Task[int] | None = None
    async with Grader.with_judges(
        deps.library.countries,
        judge_configs_from_settings(settings),
        max_reply_bytes=settings.max_reply_bytes,
    ) as grader:
        try:
            while not deps.stopping.is_set():
                lines = await _call(
                    deps,
                    _next_lines,
                    batch_id=batch_id,
                    after_line=after,
                    up_to_line=up_to,
                    limit=settings.grade_batch_chunk_lines,
                )
                if not lines:
                    break
                grades = await _grade_chunk(grader, lines)
                if writing is not None:
                    await writing
                writing = asyncio.create_task(
                    _call(deps, store.save_grades, batch_id=batch_id, grades=grades)
                )
                after = lines[-1][0]
        finally:
            if writing is not None:
                await writing
    if deps.stopping.is_set():
        return "handed back"
    if not await _call(deps, store.is_complete, batch_id=batch_id):
        return "shard done"
    # The report is stored with the status, so a completed batch always has it (two last shards may both
    # compute it; one settles the batch).
    summary = await asyncio.to_thread(compute_summary, deps.engine, batch_id)
    status = await _call(deps, store.finish_if_complete, batch_id=batch_id, summary=summary)
    log.info("grade batch completed", batch_id=batch_id, shard=shard, status=status)
    return status or "shard done"
