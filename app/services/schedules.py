"""Schedules: recurring evaluations of a target, each tick started exactly once by whichever process claims it.

Why a claim per tick rather than a lease: every API process and worker runs the scheduler loop; the tick is
claimed by a guarded update of the schedule's next_run_at in the same transaction that creates its evaluation,
so concurrent schedulers cannot both start it, and one that dies before committing leaves the tick to the next.
A tick missed while nothing ran starts once, and next_run_at jumps past now (no burst of catch-up runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable
from datetime import datetime, timedelta

import structlog
from croniter import croniter
from sqlmodel import Session

from app.benchmark.loader import Library
from app.config import Settings
from app.errors import DomainError, Invalid, NotFound
from app.queue.base import JobQueue, QueueUnavailable
from app.runner.runtime import Runtime
from app.schemas import AlertRule, EvaluationCreate, ScheduleCreate, SchedulePatch, SchedulePublic
from app.services.evaluations import check_repeats, create_evaluation
from app.store import evaluations as ev_store
from app.store import schedules as store
from app.store import targets as target_store
from app.store.models import Schedule, utcnow
from app.store.retry import db_call

log = structlog.get_logger("helmbench.schedules")
Clock = Callable[[], datetime]


def schedule_clock(settings: Settings) -> Clock:
    """Schedule time: wall time, or (drills, tests) wall time sped up from an epoch every process shares.

    Why from a shared epoch rather than from each start: replicas started seconds apart must agree on which
    tick is due, or the claim would race over different ticks instead of the same one.
    """
    rate, epoch = settings.scheduler_clock_rate, settings.scheduler_clock_epoch
    if rate == 1.0 or epoch is None:
        return utcnow
    return lambda: epoch + (utcnow() - epoch) * rate


def next_tick(schedule: Schedule, after: datetime) -> datetime:
    """The schedule's first tick strictly after `after` (UTC, whole seconds)."""
    after = after.replace(microsecond=0)
    if schedule.cron:
        return croniter(schedule.cron, after).get_next(datetime)  # type: ignore[no-any-return]
    period = timedelta(minutes=schedule.every_minutes or 1)
    anchor = schedule.created_at.replace(microsecond=0)
    if after < anchor:
        return anchor + period
    return anchor + period * (math.floor((after - anchor) / period) + 1)


def _check_cadence(cron: str | None, every_minutes: int | None) -> None:
    if (cron is None) == (every_minutes is None):
        raise Invalid("every_minutes", "every_minutes: give exactly one of cron and every_minutes")


def _check_baseline(session: Session, team_id: str, baseline: str) -> None:
    if (
        baseline != "previous"
        and ev_store.get_evaluation(session=session, team_id=team_id, evaluation_id=baseline) is None
    ):
        raise Invalid("baseline", f'baseline: "previous" or one of your evaluations, not {baseline!r}')


def _check_alert(library: Library, alert: AlertRule) -> None:
    # Imported here: regressions need NumPy and SciPy, which a process that checks an alert rule need not load.
    from app.services.regressions import metric_names

    unknown = sorted(set(alert.metrics or ()) - metric_names(library))
    if unknown:
        known = ", ".join(sorted(metric_names(library)))
        raise Invalid("alert.metrics", f"alert.metrics: unknown {unknown}; known: {known}")


def public_schedule(schedule: Schedule) -> SchedulePublic:
    return SchedulePublic(
        id=schedule.id,
        target_id=schedule.target_id,
        suite=schedule.suite,
        repeats=schedule.repeats,
        cron=schedule.cron,
        every_minutes=schedule.every_minutes,
        baseline=schedule.baseline,
        alert=AlertRule.model_validate(schedule.alert),
        paused=schedule.paused,
        next_run_at=schedule.next_run_at,
        last_run_at=schedule.last_run_at,
        last_evaluation_id=schedule.last_evaluation_id,
        last_error=schedule.last_error,
        created_at=schedule.created_at,
    )


def create_schedule(
    *,
    session: Session,
    settings: Settings,
    library: Library,
    team_id: str,
    body: ScheduleCreate,
    now: datetime,
) -> Schedule:
    _check_cadence(body.cron, body.every_minutes)
    if target_store.get_target(session=session, team_id=team_id, target_id=body.target_id) is None:
        raise NotFound("target_id", f"target_id: no target {body.target_id!r}")
    check_repeats(settings, body.repeats)
    _check_baseline(session, team_id, body.baseline)
    _check_alert(library, body.alert)
    schedule = Schedule(
        team_id=team_id,
        target_id=body.target_id,
        suite=body.suite,
        repeats=body.repeats,
        cron=body.cron,
        every_minutes=body.every_minutes,
        baseline=body.baseline,
        alert=body.alert.model_dump(),
        created_at=now,
        next_run_at=now,
    )
    schedule.next_run_at = next_tick(schedule, now)
    session.add(schedule)
    session.flush()
    return schedule


def update_schedule(
    *,
    session: Session,
    settings: Settings,
    library: Library,
    schedule: Schedule,
    body: SchedulePatch,
    now: datetime,
) -> Schedule:
    """Apply the fields given; a new cadence (or un-pausing) moves next_run_at to its next tick from now."""
    given = body.model_fields_set
    cron = body.cron if "cron" in given else (None if "every_minutes" in given else schedule.cron)
    every = (
        body.every_minutes
        if "every_minutes" in given
        else (None if "cron" in given else schedule.every_minutes)
    )
    _check_cadence(cron, every)
    if body.repeats is not None:
        check_repeats(settings, body.repeats)
    if body.baseline is not None:
        _check_baseline(session, schedule.team_id, body.baseline)
    if body.alert is not None:
        _check_alert(library, body.alert)
        schedule.alert = body.alert.model_dump()
    for name in ("suite", "repeats", "baseline", "paused"):
        value = getattr(body, name)
        if value is not None:
            setattr(schedule, name, value)
    reschedule = (cron, every) != (schedule.cron, schedule.every_minutes) or body.paused is False
    schedule.cron, schedule.every_minutes = cron, every
    if reschedule:
        schedule.next_run_at = next_tick(schedule, now)
    session.add(schedule)
    session.flush()
    return schedule


def delete_schedule(*, session: Session, schedule: Schedule, now: datetime) -> None:
    schedule.deleted_at = now
    session.add(schedule)


def _start_tick(deps: Runtime, schedule_id: str, now: datetime) -> tuple[str, int] | None:
    """Claim the schedule's due tick and create its evaluation in one transaction; (evaluation, shards) if won."""
    with Session(deps.engine, expire_on_commit=False) as session:
        schedule = store.get_schedule(session=session, team_id=None, schedule_id=schedule_id)
        if schedule is None or schedule.paused or schedule.next_run_at > now:
            return None
        tick = schedule.next_run_at
        if not store.claim_tick(
            session=session, schedule_id=schedule.id, tick=tick, next_run_at=next_tick(schedule, now)
        ):
            return None  # another scheduler started this tick
        body = EvaluationCreate(
            target_id=schedule.target_id,
            suite=schedule.suite,  # type: ignore[arg-type]
            repeats=schedule.repeats,
            baseline_evaluation_id=None if schedule.baseline == "previous" else schedule.baseline,
        )
        try:
            evaluation, _ = create_evaluation(
                session=session,
                settings=deps.settings,
                library=deps.library,
                team_id=schedule.team_id,
                body=body,
                idempotency_key=None,
                secrets=deps.secrets,
            )
        except DomainError as exc:  # target deleted, too many running, …: the tick is spent, the reason kept
            store.note_run(session=session, schedule_id=schedule.id, evaluation_id=None, error=exc.detail)
            session.commit()
            log.warning("scheduled run not started", schedule_id=schedule.id, reason=exc.detail)
            return None
        evaluation.schedule_id, evaluation.scheduled_for = schedule.id, tick
        session.add(evaluation)
        store.note_run(session=session, schedule_id=schedule.id, evaluation_id=evaluation.id, error=None)
        session.commit()
        log.info(
            "scheduled run started", schedule_id=schedule.id, evaluation_id=evaluation.id, tick=str(tick)
        )
        return evaluation.id, evaluation.shards


def _due_ids(deps: Runtime, now: datetime) -> list[str]:
    with Session(deps.engine) as session:
        return [s.id for s in store.due_schedules(session=session, now=now)]


async def run_due(deps: Runtime, queue: JobQueue, now: datetime) -> list[str]:
    """Start every schedule's due tick this process wins; returns the evaluations it started."""
    budget = min(deps.settings.db_retry_s, deps.settings.scheduler_period_s)
    started = []
    for schedule_id in await db_call(budget, _due_ids, deps, now):
        won = await db_call(budget, _start_tick, deps, schedule_id, now)
        if won is None:
            continue
        evaluation_id, shards = won
        started.append(evaluation_id)
        try:
            await queue.enqueue_shards(evaluation_id, shards)
        except QueueUnavailable as exc:  # stored is started: the reconciler queues it once the queue is back
            log.warning("queue unreachable; the scheduled run is queued later", error=str(exc))
    return started


async def schedule_forever(deps: Runtime, queue: JobQueue, clock: Clock | None = None) -> None:
    """Every scheduler_period_s start what is due; survives any one failure, ends when the process stops."""
    clock = clock or schedule_clock(deps.settings)
    while not deps.stopping.is_set():
        try:
            await run_due(deps, queue, clock())
        except Exception as exc:  # an outage of the database or the queue: the next pass tries again
            log.warning("scheduler pass failed", error=f"{type(exc).__name__}: {exc}"[:300])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(deps.stopping.wait(), deps.settings.scheduler_period_s)


def start_scheduler(deps: Runtime, queue: JobQueue) -> asyncio.Task[None]:
    return asyncio.create_task(schedule_forever(deps, queue), name="helmbench-scheduler")


async def stop_scheduler(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
