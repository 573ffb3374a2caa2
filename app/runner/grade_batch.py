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
from app.services.grading import result_of
from app.store import grade_batches as store
from app.store.retry import db_call

T = TypeVar("T")
log = structlog.get_logger("helmbench.runner")
# Judge calls in flight at once while one chunk is graded; rules-only grading does not wait on anything.
JUDGE_CONCURRENCY = 16


def _next_lines(*, session: Session, batch_id: str, after_line: int, limit: int) -> list[tuple[int, Any]]:
    rows = store.ungraded_lines(session=session, batch_id=batch_id, after_line=after_line, limit=limit)
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


async def run_grade_batch(deps: EngineDeps, batch_id: str) -> str:
    """Grade every ungraded line in chunks, then settle the batch; returns what happened, for the log."""
    if not await _call(deps, store.mark_running, batch_id=batch_id):
        return "not active"
    settings = deps.settings
    after = 0
    async with Grader.with_judges(
        deps.library.countries,
        judge_configs_from_settings(settings),
        max_reply_bytes=settings.max_reply_bytes,
    ) as grader:
        while not deps.stopping.is_set():
            lines = await _call(
                deps, _next_lines, batch_id=batch_id, after_line=after, limit=settings.grade_batch_chunk_lines
            )
            if not lines:
                break
            grades = await _grade_chunk(grader, lines)
            await _call(deps, store.save_grades, batch_id=batch_id, grades=grades)
            after = lines[-1][0]
    if deps.stopping.is_set():
        return "handed back"
    status = await _call(deps, store.finish_if_complete, batch_id=batch_id)
    log.info("grade batch finished", batch_id=batch_id, status=status)
    return status or "settled elsewhere"
