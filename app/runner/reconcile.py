"""Rebuild the queue from the database, settle what is complete, and say when an evaluation has stalled.

(Grade batches get the same rebuild and settling: app/runner/reconcile_batches.py, called from each pass.)

Why: the database holds all durable state; the queue can lose its contents (Redis restarted without persistence,
a failover to an empty replica) and a shard's job can end with items of the shard unwritten (a write that failed
past its retries, a job timeout, a job arq gave up on). So one process at a time (a lease in the database; API
replicas and workers all take part, and the embedded default runs it in the API process) looks each period at
every queued or running evaluation:
- a shard with items left that is neither queued nor held by a live process, seen so for `grace_s`, is queued
  again (grace: a worker whose Redis came back empty re-asserts its hold within one renewal, a second); the
  next pass comes when the first such shard's grace ends if that is before the period, so workers that ran out
  of shards after Redis lost the queue wait a grace, not a period on top;
- an evaluation whose items are all written is settled (its last shard may have died before it could), and so
  is one its budget stopped once the items it started are written (or, with no shard of it queued or held for
  `grace_s`, died with their worker); a budget-stopped run's shards are never queued again;
- an evaluation that writes nothing for stall_after_s is marked stalled with the reason, unless it is only
  waiting behind other work that moves; progress clears the mark; stall_fail_s without progress fails it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol, TypeVar

import structlog
from sqlmodel import Session

from app.runner.leased import leased_forever
from app.runner.reconcile_batches import BatchWatch
from app.runner.runtime import Runtime
from app.runner.shard import finish_evaluation
from app.store import evaluations as ev_store
from app.store import items as item_store
from app.store.models import Evaluation, utcnow
from app.store.retry import db_call

LEASE_NAME = "reconciler"
MIN_WAIT_S = 0.1
log = structlog.get_logger("helmbench.reconcile")
T = TypeVar("T")


class ShardQueue(Protocol):
    """What the reconciler needs of a queue (app/queue: arq's or the in-process one)."""

    async def shard_states(self, evaluation_id: str, shards: Sequence[int]) -> dict[int, str]: ...

    async def requeue_shard(self, evaluation_id: str, shard: int) -> bool: ...

    async def grade_batch_states(self, batch_id: str, shards: Sequence[int]) -> dict[int, str]: ...

    async def requeue_grade_batch(self, batch_id: str, shard: int) -> bool: ...


@dataclass(frozen=True)
class Look:
    """One evaluation as one pass saw it."""

    evaluation: Evaluation
    done: int
    unfinished: list[int]
    states: dict[int, str]
    requeued: list[int]

    @property
    def moved(self) -> bool:
        return self.done > self.evaluation.progress_done

    def count(self, state: str) -> int:
        return sum(1 for s in self.unfinished if self.states.get(s) == state)

    def reason(self, idle_s: float) -> str:
        """Why it stalled, in words an operator can act on."""
        queued, running = self.count("queued"), self.count("running")
        lost = len(self.unfinished) - queued - running
        where = f"{running} running, {queued} queued" + (
            f", {lost} re-queued after being lost" if lost else ""
        )
        if running == 0 and queued:
            where += " (no worker is taking them)"
        return (
            f"no item written for {idle_s:.0f} s: {self.done} of {self.evaluation.total} done; "
            f"shards with items left: {where}"
        )


@dataclass
class Reconciler:
    deps: Runtime
    queue: ShardQueue
    grace_s: float
    orphaned: dict[tuple[str, int], float] = field(default_factory=dict)
    # Per active evaluation, how many of its first shards were seen whole: items are never taken back while it
    # runs, so a pass counts only the shards from there on (shards are taken in order: mostly the run's tail),
    # not every item of the run each period.
    whole_before: dict[str, int] = field(default_factory=dict)
    batches: BatchWatch = field(init=False)

    def __post_init__(self) -> None:
        self.batches = BatchWatch(self.deps, self.queue, self.grace_s, self._db)

    async def _db(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Retried only within one period: a pass the database cannot serve gives way to the next one."""
        budget = min(self.deps.settings.db_retry_s, self.deps.settings.reconcile_period_s)
        return await db_call(budget, fn, *args, **kwargs)

    def next_due(self, period: float) -> float:
        """Seconds until the next pass: the period, or sooner when a lost shard's grace ends before it."""
        lost = [*self.orphaned.values(), *self.batches.orphaned.values()]
        if not lost:
            return period
        due = min(lost) + self.grace_s - time.monotonic()
        return min(period, max(MIN_WAIT_S, due))

    async def pass_once(self) -> list[Look]:
        """One look at every active evaluation: re-queue lost shards, settle complete ones, watch for stalls."""
        active = await self._db(self._active)
        looks = []
        for evaluation in active:
            look = await self._look(evaluation)
            if look is not None:
                looks.append(look)
        running = {look.evaluation.id for look in looks}
        self.whole_before = {k: n for k, n in self.whole_before.items() if k in running}
        live = {(look.evaluation.id, s) for look in looks for s in look.unfinished}
        live |= {(look.evaluation.id, -1) for look in looks if look.evaluation.budget_stopped_at is not None}
        for key in [k for k in self.orphaned if k not in live]:
            del self.orphaned[key]
        window = timedelta(seconds=self.deps.settings.stall_after_s)
        busy = any(look.moved for look in looks) or await self._db(self._finished_since, utcnow() - window)
        for look in looks:
            await self._db(self._watch, look, busy)
        await self.batches.pass_once()
        return looks

    def _active(self) -> list[Evaluation]:
        with Session(self.deps.engine, expire_on_commit=False) as session:
            return ev_store.active_evaluations(session=session)

    def _finished_since(self, since: Any) -> bool:
        with Session(self.deps.engine) as session:
            return ev_store.any_finished_since(session=session, since=since)

    def _counts(self, evaluation_id: str, from_shard: int) -> dict[int, int]:
        with Session(self.deps.engine) as session:
            return item_store.shard_counts(
                session=session,
                evaluation_id=evaluation_id,
                shard_size=self.deps.settings.shard_size,
                from_shard=from_shard,
            )

    async def _look(self, evaluation: Evaluation) -> Look | None:
        size = self.deps.settings.shard_size
        first = self.whole_before.get(evaluation.id, 0)
        counts = await self._db(self._counts, evaluation.id, first)
        done = min(first * size, evaluation.total) + sum(counts.values())
        stopped = evaluation.budget_stopped_at is not None
        if done >= evaluation.total or (stopped and evaluation.budget_in_flight <= 0):
            status = await self._db(finish_evaluation, self.deps, evaluation.id)
            if status:
                log.info("evaluation settled by the reconciler", evaluation_id=evaluation.id, status=status)
            return None
        unfinished = [
            s
            for s in range(first, evaluation.shards)
            if counts.get(s, 0) < min(size, evaluation.total - s * size)
        ]
        self.whole_before[evaluation.id] = unfinished[0] if unfinished else evaluation.shards
        states = await self.queue.shard_states(evaluation.id, unfinished)
        if stopped:
            return await self._budget_stopped(evaluation, done, unfinished, states)
        requeued = []
        now = time.monotonic()
        for shard in unfinished:
            key = (evaluation.id, shard)
            if shard in states:
                self.orphaned.pop(key, None)
                continue
            first_seen = self.orphaned.setdefault(key, now)
            if now - first_seen >= self.grace_s and await self.queue.requeue_shard(evaluation.id, shard):
                self.orphaned.pop(key, None)
                requeued.append(shard)
        if requeued:
            log.warning(
                "shards re-queued: neither queued nor held",
                evaluation_id=evaluation.id,
                shards=requeued,
                done=done,
                total=evaluation.total,
            )
        return Look(evaluation, done, unfinished, states, requeued)

    async def _budget_stopped(
        self, evaluation: Evaluation, done: int, unfinished: list[int], states: dict[int, str]
    ) -> Look | None:
        """A run its budget stopped is never re-queued. Items it still counts in flight with no shard queued or
        held for a grace died with their worker: nothing will write them, so it settles without them."""
        key = (evaluation.id, -1)
        if states:
            self.orphaned.pop(key, None)
            return Look(evaluation, done, unfinished, states, [])
        first_seen = self.orphaned.setdefault(key, time.monotonic())
        if time.monotonic() - first_seen < self.grace_s:
            return Look(evaluation, done, unfinished, states, [])
        self.orphaned.pop(key, None)
        status = await self._db(finish_evaluation, self.deps, evaluation.id, budget_lost=True)
        if status:
            log.warning(
                "budget-stopped evaluation settled without items lost with their worker",
                evaluation_id=evaluation.id,
                in_flight=evaluation.budget_in_flight,
            )
        return None

    def _watch(self, look: Look, busy: bool) -> None:
        """Move the evaluation's progress watch on by what this pass saw (one short transaction)."""
        evaluation, settings = look.evaluation, self.deps.settings
        now = utcnow()
        with Session(self.deps.engine) as session:
            if look.moved:
                ev_store.note_progress(session=session, evaluation_id=evaluation.id, done=look.done)
                if evaluation.stalled:
                    log.info("stall cleared: items are being written", evaluation_id=evaluation.id)
            elif busy and look.count("queued") and not look.count("running"):
                # Waiting its turn behind other evaluations that move is not a stall.
                if evaluation.idle_since is not None:
                    ev_store.set_idle_since(session=session, evaluation_id=evaluation.id, since=None)
            elif evaluation.idle_since is None:
                ev_store.set_idle_since(session=session, evaluation_id=evaluation.id, since=now)
            else:
                idle = (now - evaluation.idle_since).total_seconds()
                if idle >= settings.stall_fail_s:
                    reason = evaluation.stalled or look.reason(idle)
                    ev_store.fail_evaluation(
                        session=session, evaluation_id=evaluation.id, error=f"stalled: {reason}"
                    )
                    log.error("stalled evaluation failed", evaluation_id=evaluation.id, reason=reason)
                elif idle >= settings.stall_after_s and not evaluation.stalled:
                    reason = look.reason(idle)
                    if ev_store.mark_stalled(session=session, evaluation_id=evaluation.id, reason=reason):
                        log.warning("evaluation stalled", evaluation_id=evaluation.id, reason=reason)
            session.commit()


async def reconcile_forever(deps: Runtime, queue: ShardQueue, *, grace_s: float) -> None:
    """Every reconcile_period_s, if this process holds the lease, make one pass; survives any one failure.

    Ends when the process starts stopping (a stopping process must not queue work it will not run).
    """
    reconciler = Reconciler(deps, queue, grace_s)
    period = deps.settings.reconcile_period_s

    async def one_pass() -> float:
        await reconciler.pass_once()
        return reconciler.next_due(period)

    await leased_forever(
        deps,
        LEASE_NAME,
        period=period,
        ttl=max(3 * period, 10.0),
        one_pass=one_pass,
        log=log,
        failed="reconcile pass failed",
    )


def start_reconciler(deps: Runtime, queue: ShardQueue, *, grace_s: float) -> asyncio.Task[None]:
    return asyncio.create_task(reconcile_forever(deps, queue, grace_s=grace_s), name="helmbench-reconcile")


async def stop_reconciler(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
