"""Concurrent schedulers on one database start each tick exactly once; one killed mid-claim blocks nobody."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.services.schedules import next_tick, run_due, schedule_forever
from app.store.migrate import upgrade
from app.store.models import Evaluation, Schedule, Target, Team
from tests.conftest import fresh_postgres_database
from tests.waits import eventually_async

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 1, 5, 9, 0, 0, tzinfo=UTC)


class RecordingQueue:
    """Stands in for the job queue: what the schedulers started is what they asked to run."""

    def __init__(self) -> None:
        self.enqueued: list[str] = []

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        self.enqueued.append(evaluation_id)
        return shards


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_settings(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Settings]:
    busy = {"max_active_evaluations": 100}  # runs here never finish: the fake queue runs nothing
    if request.param == "sqlite":
        yield settings.model_copy(update=busy)
        return
    with fresh_postgres_database() as url:
        yield settings.model_copy(update={**busy, "database_url": url})


def seed_schedule(deps: Runtime) -> str:
    """A team, a target and a one-minute schedule created at T0 (first tick T0 + 1 min)."""
    with Session(deps.engine) as session:
        team = Team(name="ops")
        session.add(team)
        session.flush()
        target = Target(team_id=team.id, name="bot", kind="openai_chat", base_url="http://bot/v1", model="b")
        session.add(target)
        session.flush()
        schedule = Schedule(
            team_id=team.id,
            target_id=target.id,
            suite="quick",
            every_minutes=1,
            created_at=T0,
            next_run_at=T0 + timedelta(minutes=1),
        )
        session.add(schedule)
        session.commit()
        return schedule.id


def scheduled_runs(deps: Runtime, schedule_id: str) -> list[datetime]:
    with Session(deps.engine) as session:
        stmt = select(Evaluation.scheduled_for).where(Evaluation.schedule_id == schedule_id)
        return sorted(t for t in session.exec(stmt) if t is not None)


@pytest.fixture
def two_schedulers(db_settings: Settings) -> Iterator[tuple[Runtime, Runtime]]:
    upgrade(db_settings)
    first, second = build_runtime(db_settings), build_runtime(db_settings)  # two processes: two engines
    yield first, second
    first.engine.dispose()
    second.engine.dispose()


def test_two_schedulers_over_ten_ticks_start_each_exactly_once(
    two_schedulers: tuple[Runtime, Runtime],
) -> None:
    first, second = two_schedulers
    schedule_id = seed_schedule(first)
    queues = RecordingQueue(), RecordingQueue()

    async def race() -> list[int]:
        counts = []
        for minute in range(1, 11):
            now = T0 + timedelta(minutes=minute)
            won = await asyncio.gather(run_due(first, queues[0], now), run_due(second, queues[1], now))
            counts.append(sum(len(w) for w in won))
        return counts

    assert asyncio.run(race()) == [1] * 10
    assert scheduled_runs(first, schedule_id) == [T0 + timedelta(minutes=m) for m in range(1, 11)]
    assert len(queues[0].enqueued) + len(queues[1].enqueued) == 10


def test_a_scheduler_killed_mid_claim_does_not_block_the_next(
    two_schedulers: tuple[Runtime, Runtime], db_settings: Settings
) -> None:
    survivor, _ = two_schedulers
    schedule_id = seed_schedule(survivor)
    tick = T0 + timedelta(minutes=1)
    with Session(survivor.engine) as session:
        schedule = session.get(Schedule, schedule_id)
        assert schedule is not None
        following = next_tick(schedule, tick)
    hung = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.services.claim_and_hang",
            db_settings.sqlalchemy_url,
            schedule_id,
            tick.isoformat(),
            following.isoformat(),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert hung.stdout is not None and hung.stdout.readline().strip() == "claimed"
    finally:
        hung.send_signal(signal.SIGKILL)
        hung.wait()
        hung.stdout.close()
    queue = RecordingQueue()
    started = asyncio.run(run_due(survivor, queue, tick))
    assert len(started) == 1 and queue.enqueued == started
    assert scheduled_runs(survivor, schedule_id) == [tick]
    with Session(survivor.engine) as session:
        schedule = session.exec(select(Schedule).where(col(Schedule.id) == schedule_id)).one()
        assert schedule.next_run_at == following


def test_the_scheduler_loop_starts_due_ticks_and_stops_with_the_process(db_settings: Settings) -> None:
    settings = db_settings.model_copy(update={"scheduler_period_s": 0.05})
    upgrade(settings)
    deps = build_runtime(settings)
    schedule_id = seed_schedule(deps)
    queue = RecordingQueue()

    async def serve() -> None:
        loop = asyncio.create_task(schedule_forever(deps, queue, clock=lambda: T0 + timedelta(minutes=3)))
        await eventually_async(lambda: queue.enqueued, what="the scheduler's first enqueue", every=0.01)
        deps.stopping.set()
        await loop  # ends by itself once the process is stopping

    asyncio.run(serve())
    assert scheduled_runs(deps, schedule_id) == [T0 + timedelta(minutes=1)]  # missed ticks: one run
    deps.engine.dispose()
