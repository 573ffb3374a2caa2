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

from app.grading.grader import Grader
from app.grading.grades.verdict import Grade
from app.grading.result import result_of
from app.grading.transcript import Transcript
from app.runner.handback import HandedBack
from app.runner.judging import default_judges
from app.runner.runtime import Runtime
from app.scoring.grade_batch import compute_summary
from app.store import grade_batches as store
from app.store.retry import db_call

T = TypeVar("T")
log = structlog.get_logger("helmbench.runner")
# Judge calls in flight at once while one chunk is graded; rules-only grading does not wait on anything.
JUDGE_CONCURRENCY = 16
YIELD_EVERY = 25


async def _call(deps: Runtime, fn: Callable[..., T], /, **kwargs: Any) -> T:
    def in_session() -> T:
        with Session(deps.engine) as session:
            out = fn(session=session, **kwargs)
            session.commit()
            return out

    return await db_call(deps.settings.db_retry_s, in_session)


async def _grade_chunk(grader: Grader, lines: list[tuple[int, str]]) -> list[store.GradeRow]:
    def graded(line: int, grade: Grade) -> store.GradeRow:
        # Serialized here by pydantic, stored as this text: a dict would be dumped again by the JSON column.
        return store.GradeRow(line, grade.verdict, result_of(grade).model_dump_json())

    def transcript(text: str) -> Transcript:
        return Transcript.model_validate_json(text)

    if grader.judge is None:
        # Rules only: pure CPU, so no task per line; the loop is let through every few lines so a lease
        # renewal or a finished write is not held up behind a whole chunk.
        out = []
        for n, (line, text) in enumerate(lines, 1):
            out.append(graded(line, await grader.grade_transcript(transcript(text))))
            if n % YIELD_EVERY == 0:
                await asyncio.sleep(0)
        return out
    slots = asyncio.Semaphore(JUDGE_CONCURRENCY)

    async def one(line: int, text: str) -> store.GradeRow:
        async with slots:
            return graded(line, await grader.grade_transcript(transcript(text)))

    return list(await asyncio.gather(*(one(line, text) for line, text in lines)))


async def run_grade_batch(deps: Runtime, batch_id: str, shard: int) -> str:
    """Grade the shard's ungraded lines in chunks, then settle the batch if it is done; returns what happened,
    or raises `HandedBack` when the process is stopping before the shard's lines are graded.

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
        default_judges(settings),
        max_reply_bytes=settings.max_reply_bytes,
    ) as grader:
        try:
            while not deps.stopping.is_set():
                lines = await _call(
                    deps,
                    store.ungraded_lines,
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
        raise HandedBack(f"grade batch {batch_id} shard {shard}: stopping with lines not graded")
    if not await _call(deps, store.is_complete, batch_id=batch_id):
        return "shard done"
    # The report is stored with the status, so a completed batch always has it (two last shards may both
    # compute it; one settles the batch).
    summary = await asyncio.to_thread(compute_summary, deps.engine, batch_id)
    status = await _call(deps, store.finish_if_complete, batch_id=batch_id, summary=summary)
    log.info("grade batch completed", batch_id=batch_id, shard=shard, status=status)
    return status or "shard done"
