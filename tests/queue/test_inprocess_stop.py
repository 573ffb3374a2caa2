"""`helmbench serve` stopping: in-process shards let calls in flight finish, hand the rest back, and the next
start resumes them (the reconciler's first pass) to one row per item."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.queue.inprocess import InProcessQueue
from app.runner.reconcile import Reconciler
from app.runner.runtime import Runtime
from bench.harness import create_evaluation, make_deps, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library
from tests.waits import eventually_async


async def test_a_stopping_server_writes_its_calls_in_flight_and_the_next_start_resumes(
    tmp_path: Path,
) -> None:
    settings = Settings(
        var_dir=tmp_path / "var", target_allowlist="127.0.0.0/8", shard_size=50, stop_grace_s=5
    )
    library = synthetic_library(4, 25)  # 100 items, 2 shards
    deps = make_deps(settings, library)
    async with running_mock(MockConfig(latency=0.3)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        queue = InProcessQueue(deps)
        await queue.enqueue_shards(evaluation.id, evaluation.shards)
        await eventually_async(lambda: written(deps, evaluation.id).rows >= 8, what="8 items written")
        await queue.close()  # what the lifespan does on SIGTERM
        stopped = written(deps, evaluation.id)
        assert stopped.status == "running" and stopped.rows == stopped.distinct_keys < 100
        assert stopped.errors.get("cancelled", 0) == 0  # calls in flight finished rather than being cut

        restarted = Runtime(settings=settings, engine=deps.engine, library=library, secrets=deps.secrets)
        queue = InProcessQueue(restarted)
        looks = await Reconciler(restarted, queue, grace_s=0).pass_once()
        assert looks[0].requeued == [0, 1]
        await eventually_async(queue.depth, lambda depth: depth == 0, what="the requeued shards to run")
        await queue.close()
    result = written(deps, evaluation.id)
    assert result.status == "succeeded" and result.rows == result.distinct_keys == result.answered == 100
