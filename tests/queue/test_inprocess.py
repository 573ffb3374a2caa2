"""The in-process queue: a shard's job id is fixed, so enqueueing an evaluation twice queues nothing twice."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.queue.inprocess import InProcessQueue
from bench.harness import create_evaluation, make_deps, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library
from tests.waits import eventually_async


async def test_inprocess_queue_runs_each_shard_once(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path / "var", target_allowlist="127.0.0.0/8", shard_size=10)
    deps = make_deps(settings, synthetic_library(2, 10))
    queue = InProcessQueue(deps)
    async with running_mock(MockConfig(latency=0.05)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        assert await queue.enqueue_shards(evaluation.id, evaluation.shards) == 2
        assert await queue.enqueue_shards(evaluation.id, evaluation.shards) == 0  # already queued
        assert await queue.depth() == 2
        await eventually_async(queue.depth, lambda depth: depth == 0, what="the queue to drain")
        await queue.close()
    result = written(deps, evaluation.id)
    assert result.rows == result.distinct_keys == 20 and result.status == "succeeded"
