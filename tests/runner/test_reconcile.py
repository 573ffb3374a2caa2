"""The reconciler rebuilds a lost queue from the database, settles what is complete and names stalls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import Session, col, select

from app.config import Settings
from app.queue.arq_queue import ArqQueue
from app.runner.reconcile import Reconciler, start_reconciler, stop_reconciler
from app.runner.runtime import Runtime
from app.runner.shard import run_shard
from app.services.events import progress_events
from app.shared_polls import SharedPolls
from app.store import items as item_store
from app.store.items import insert_items
from app.store.keys import get_or_create_default_team
from app.store.models import Evaluation, Webhook, WebhookMessage
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.mock_target import MockConfig, running_mock
from bench.redis_server import OwnRedis
from bench.synthetic import synthetic_library
from tests.store.conftest import item_row
from tests.waits import eventually_async

pytestmark = pytest.mark.redis  # a Redis of the test's own (redis-server), restartable and emptied at will


@pytest.fixture(scope="module")
def own_redis() -> Iterator[OwnRedis]:
    with OwnRedis() as server:
        yield server


@pytest.fixture
async def queue(own_redis: OwnRedis) -> AsyncIterator[ArqQueue]:
    queue = await ArqQueue.connect(own_redis.url, "helmbench:reconcile-test")
    await queue._pool.flushdb()
    yield queue
    await queue.close()


def _deps(tmp_path: Path, redis_url: str, **extra: object) -> Runtime:
    settings = Settings(
        var_dir=tmp_path / "var",
        redis_url=redis_url,
        queue_name="helmbench:reconcile-test",
        target_allowlist="127.0.0.0/8",
        shard_size=25,
        **extra,  # type: ignore[arg-type]
    )
    return make_deps(settings, synthetic_library(4, 25))  # 100 items, 4 shards


def _reread(deps: Runtime, evaluation_id: str) -> Evaluation:
    with Session(deps.engine, expire_on_commit=False) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        return evaluation


async def test_a_queue_that_lost_its_jobs_is_refilled_except_what_a_worker_holds(
    tmp_path: Path, own_redis: OwnRedis, queue: ArqQueue
) -> None:
    deps = _deps(tmp_path, own_redis.url)
    evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=4)
    assert await queue.enqueue_shards(evaluation.id, evaluation.shards) == 4
    own_redis.restart_empty()  # no persistence: every queued job is gone
    await queue._pool.set(
        f"arq:in-progress:{evaluation.id}:shard:2", b"1", px=60_000
    )  # a live holder re-asserted
    assert await queue.shard_states(evaluation.id, range(4)) == {2: "running"}

    looks = await Reconciler(deps, queue, grace_s=0).pass_once()

    assert looks[0].requeued == [0, 1, 3]
    assert await queue.shard_states(evaluation.id, range(4)) == {
        0: "queued",
        1: "queued",
        2: "running",
        3: "queued",
    }
    assert await queue.depth() == 3
    again = await Reconciler(deps, queue, grace_s=0).pass_once()
    assert again[0].requeued == []  # queued now: nothing twice


async def test_a_lost_shard_waits_out_the_grace_before_it_is_queued_again(
    tmp_path: Path, own_redis: OwnRedis, queue: ArqQueue
) -> None:
    deps = _deps(tmp_path, own_redis.url)
    evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=4)
    reconciler = Reconciler(deps, queue, grace_s=3600)
    assert (await reconciler.pass_once())[0].requeued == []
    assert set(reconciler.orphaned) == {(evaluation.id, s) for s in range(4)}  # seen lost, timed from now


async def test_a_lost_shard_is_queued_again_when_its_grace_ends_not_a_period_later(
    tmp_path: Path, own_redis: OwnRedis, queue: ArqQueue
) -> None:
    deps = _deps(tmp_path, own_redis.url, reconcile_period_s=300)
    evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=4)
    task = start_reconciler(deps, queue, grace_s=0.5)
    try:
        await eventually_async(  # a period is five minutes: only a pass timed by the grace gets here
            queue.depth,
            lambda depth: depth >= evaluation.shards,
            what="the shards to be requeued",
            timeout=60,
        )
        assert await queue.shard_states(evaluation.id, range(4)) == dict.fromkeys(range(4), "queued")
    finally:
        deps.stopping.set()
        await stop_reconciler(task)


async def test_a_pass_counts_only_the_shards_from_the_first_not_yet_whole(
    tmp_path: Path, own_redis: OwnRedis, queue: ArqQueue, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shards seen whole stay whole while a run goes, so later passes leave them out of the count; what a pass
    reports (items done, shards left) is the same as counting them all."""
    deps = _deps(tmp_path, own_redis.url)  # 4 shards of 25
    evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=4)
    read_from: list[int] = []
    counts = item_store.shard_counts

    def spied(**kwargs: Any) -> dict[int, int]:
        read_from.append(kwargs["from_shard"])
        return counts(**kwargs)

    monkeypatch.setattr(item_store, "shard_counts", spied)

    def write(indexes: range) -> None:
        insert_items(engine=deps.engine, rows=[item_row(evaluation.id, i) for i in indexes])

    write(range(0, 25))  # shard 0 whole
    write(range(25, 35))  # shard 1 in part
    write(range(50, 75))  # shard 2 whole
    reconciler = Reconciler(deps, queue, grace_s=3600)  # nothing re-queued here
    (look,) = await reconciler.pass_once()
    assert (look.done, look.unfinished, read_from) == (60, [1, 3], [0])
    write(range(35, 50))  # shard 1 whole now
    (look,) = await reconciler.pass_once()
    assert (look.done, look.unfinished, read_from) == (75, [3], [0, 1])
    (look,) = await reconciler.pass_once()
    assert (look.done, look.unfinished, read_from) == (75, [3], [0, 1, 3])
    write(range(75, 100))
    assert await reconciler.pass_once() == []  # every item written: settled
    assert _reread(deps, evaluation.id).status == "succeeded"
    assert reconciler.whole_before == {}  # nothing kept for a run no longer active


async def test_an_evaluation_whose_items_are_all_written_is_settled(
    tmp_path: Path, own_redis: OwnRedis
) -> None:
    deps = _deps(tmp_path, own_redis.url)
    async with running_mock(MockConfig(latency=0.005)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=8)
        await run_evaluation(deps, evaluation, max_jobs=2)
    with Session(deps.engine) as session:  # as if the last shard died between its last write and settling
        session.execute(
            update(Evaluation).where(col(Evaluation.id) == evaluation.id).values(status="running")
        )
        session.commit()
    queue = await ArqQueue.connect(own_redis.url, "helmbench:reconcile-test")
    try:
        assert await Reconciler(deps, queue, grace_s=0).pass_once() == []
    finally:
        await queue.close()
    assert _reread(deps, evaluation.id).status == "succeeded" and _reread(deps, evaluation.id).summary


async def test_a_stall_is_named_signalled_cleared_by_progress_and_fails_the_run_when_it_lasts(
    tmp_path: Path, own_redis: OwnRedis, queue: ArqQueue
) -> None:
    deps = _deps(tmp_path, own_redis.url, stall_after_s=0.001)
    with Session(deps.engine) as session:
        team = get_or_create_default_team(session=session)
        session.add(Webhook(team_id=team.id, url="http://127.0.0.1:9/hook", events=[], signing_secret="x"))
        session.commit()
    async with running_mock(MockConfig(latency=0.005)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        reconciler = Reconciler(deps, queue, grace_s=0)
        await reconciler.pass_once()  # queued again (nothing held them); no worker: the idle clock starts
        await reconciler.pass_once()
        stalled = _reread(deps, evaluation.id)
        assert stalled.status == "queued" and stalled.stalled
        assert "0 of 100 done" in stalled.stalled and "no worker is taking them" in stalled.stalled
        events = progress_events(
            engine=deps.engine,
            reads=SharedPolls(0.025),
            evaluation_id=evaluation.id,
            last_event_id=None,
            poll_s=0.05,
        )
        first = await anext(events)
        assert '"stalled":"no item written' in first["data"]
        await events.aclose()

        await run_shard(deps, evaluation.id, 0)  # a worker appears and writes a shard
        await deps.targets.aclose()
        await reconciler.pass_once()
        assert _reread(deps, evaluation.id).stalled is None  # progress clears it

    deps.settings = deps.settings.model_copy(update={"stall_fail_s": 0.002})
    await reconciler.pass_once()  # idle again from here
    await asyncio.sleep(0.01)
    await reconciler.pass_once()
    failed = _reread(deps, evaluation.id)
    assert failed.status == "failed" and failed.error and failed.error.startswith("stalled: no item written")
    assert "25 of 100 done" in failed.error
    with Session(deps.engine) as session:
        sent = [
            m.event_type
            for m in session.exec(select(WebhookMessage).order_by(col(WebhookMessage.created_at)))
        ]
    assert sent == ["evaluation.stalled", "evaluation.failed"]


async def test_waiting_behind_work_that_moves_is_not_a_stall(
    tmp_path: Path, own_redis: OwnRedis, queue: ArqQueue
) -> None:
    deps = _deps(tmp_path, own_redis.url, stall_after_s=0.001)
    async with running_mock(MockConfig(latency=0.005)) as base:
        moving = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        waiting = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        await queue.enqueue_shards(waiting.id, waiting.shards)
        reconciler = Reconciler(deps, queue, grace_s=3600)
        for shard in range(3):
            await run_shard(deps, moving.id, shard)
            await reconciler.pass_once()
            await reconciler.pass_once() if shard == 0 else None
        await deps.targets.aclose()
    assert _reread(deps, waiting.id).stalled is None and _reread(deps, waiting.id).idle_since is None
    assert written(deps, moving.id).rows == 75
