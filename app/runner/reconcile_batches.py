"""The reconciler's look at grade batches: a line range with lines left that no job holds is queued again.

Why: as for evaluations, the database holds the lines and their grades and the queue can lose its jobs; a batch
must then resume without waiting for an API process to start. A range (shard) of a queued or running batch that
is neither queued nor held and still has an ungraded line, seen so for the grace, is queued again. A batch whose
lines are all graded but that was not settled (its last job died between its last write and settling) gets one
job queued again: a job that finds nothing to grade settles the batch and computes its report where jobs run
(a worker), never in the reconciling process. A range seen fully graded is remembered: a grade is never undone.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import structlog
from sqlmodel import Session

from app.runner.runtime import Runtime
from app.store import grade_batches as store

T = TypeVar("T")
log = structlog.get_logger("helmbench.reconcile")


class BatchQueue(Protocol):
    async def grade_batch_states(self, batch_id: str, shards: Sequence[int]) -> dict[int, str]: ...

    async def requeue_grade_batch(self, batch_id: str, shard: int) -> bool: ...


@dataclass
class BatchWatch:
    deps: Runtime
    queue: BatchQueue
    grace_s: float
    db: Callable[..., Awaitable[Any]]
    orphaned: dict[tuple[str, int], float] = field(default_factory=dict)
    graded: set[tuple[str, int]] = field(default_factory=set)

    def _in_session(self, fn: Callable[..., T], /, **kwargs: Any) -> Callable[[], T]:
        def run() -> T:
            with Session(self.deps.engine) as session:
                return fn(session=session, **kwargs)

        return run

    async def pass_once(self) -> dict[str, list[int]]:
        """One look at every queued or running batch; returns the ranges queued again, by batch."""
        batches = await self.db(self._in_session(store.active_batches))
        requeued: dict[str, list[int]] = {}
        live: set[tuple[str, int]] = set()
        for batch_id, last_line in batches:
            shards = await self._lost(batch_id, last_line)
            live.update((batch_id, s) for s in shards)
            again = [s for s in shards if await self._requeue_after_grace(batch_id, s)]
            if again:
                requeued[batch_id] = again
                log.warning(
                    "grade batch ranges re-queued: neither queued nor held", batch_id=batch_id, shards=again
                )
        for key in [k for k in self.orphaned if k not in live]:
            del self.orphaned[key]
        active = {batch_id for batch_id, _ in batches}
        self.graded = {k for k in self.graded if k[0] in active}
        return requeued

    async def _lost(self, batch_id: str, last_line: int) -> list[int]:
        """The batch's ranges that need a job and have none (queued or held)."""
        size = self.deps.settings.grade_batch_shard_lines
        every = range(store.shard_count(last_line, size))
        shards = [s for s in every if (batch_id, s) not in self.graded]
        states = await self.queue.grade_batch_states(batch_id, shards)
        lost = []
        for shard in shards:
            if shard in states:
                self.orphaned.pop((batch_id, shard), None)
                continue
            left = await self.db(
                self._in_session(
                    store.has_ungraded,
                    batch_id=batch_id,
                    after_line=shard * size,
                    up_to_line=(shard + 1) * size,
                )
            )
            if left:
                lost.append(shard)
            else:
                self.graded.add((batch_id, shard))
        if lost or states:
            return lost
        # Every line graded and the batch still active: unless a job is still at it (settling), one settles it.
        if not await self.db(self._in_session(store.is_complete, batch_id=batch_id)):
            return []
        return [] if await self.queue.grade_batch_states(batch_id, every) else [0]

    async def _requeue_after_grace(self, batch_id: str, shard: int) -> bool:
        key = (batch_id, shard)
        first_seen = self.orphaned.setdefault(key, time.monotonic())
        if time.monotonic() - first_seen < self.grace_s:
            return False
        if not await self.queue.requeue_grade_batch(batch_id, shard):
            return False
        self.orphaned.pop(key, None)
        return True
