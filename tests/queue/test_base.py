"""The queue interface's fixed job ids and lease timings: what makes a repeated enqueue a no-op, and what lets the
reconciler tell a lost shard from one whose holder is just renewing."""

from __future__ import annotations

import inspect

import pytest

from app.queue.arq_queue import ArqQueue
from app.queue.base import JobQueue, grade_batch_job_id, lost_shard_grace_s, renew_every_s, shard_job_id
from app.queue.database import DatabaseQueue
from app.queue.inprocess import InProcessQueue


def test_a_job_id_is_fixed_per_shard_and_grading_jobs_never_collide_with_runs() -> None:
    assert shard_job_id("ev_1", 0) == shard_job_id("ev_1", 0) == "ev_1:shard:0"
    ids = {shard_job_id("ev_1", s) for s in range(3)} | {grade_batch_job_id("ev_1", s) for s in range(3)}
    assert len(ids) == 6


@pytest.mark.parametrize(("lease_s", "every_s"), [(0.3, 0.1), (1.5, 0.5), (3, 1.0), (30, 1.0), (600, 1.0)])
def test_a_lease_is_renewed_three_times_within_it_and_at_least_once_a_second(
    lease_s: float, every_s: float
) -> None:
    assert renew_every_s(lease_s) == pytest.approx(every_s)
    assert lease_s / renew_every_s(lease_s) >= 3 - 1e-9, "a lease lapses only after three missed renewals"


@pytest.mark.parametrize("lease_s", [0.3, 1.5, 3, 30, 600])
def test_a_lost_shard_waits_three_renewals_and_never_longer_than_its_lease(lease_s: float) -> None:
    grace = lost_shard_grace_s(lease_s)
    assert grace == pytest.approx(3 * renew_every_s(lease_s)) and grace <= lease_s + 1e-9


@pytest.mark.parametrize("queue", [ArqQueue, DatabaseQueue, InProcessQueue])
def test_each_queue_answers_every_call_of_the_interface_as_a_coroutine(queue: type) -> None:
    calls = [name for name, _ in inspect.getmembers(JobQueue, inspect.isfunction) if not name.startswith("_")]
    assert "enqueue_shards" in calls and "requeue_grade_batch" in calls
    for name in calls:
        assert inspect.iscoroutinefunction(getattr(queue, name)), f"{queue.__name__}.{name}"
        wanted = list(inspect.signature(getattr(JobQueue, name)).parameters)
        assert list(inspect.signature(getattr(queue, name)).parameters) == wanted, f"{queue.__name__}.{name}"
