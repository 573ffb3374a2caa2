"""SIGTERM to a worker: no new items, calls in flight finish, its shards and slots are handed back at once."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

import pytest
from redis import Redis

from app.benchmark.loader import load_library
from app.grading.checks import CHECKS
from app.limits.gcra import limits_key
from app.queue.arq_queue import ArqQueue
from bench.harness import create_evaluation, make_deps, written
from bench.mockproc import mock_process
from bench.synthetic import synthetic_library, write_library
from tests.worker_processes import (
    cluster_settings,
    enqueue_shards,
    evaluation_status,
    log_problems,
    start_worker,
    stop_workers,
    wait_until,
    worker_env,
)

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(240)]

GRACE_S = 2.0


def test_sigterm_hands_shards_and_slots_back_at_once_and_nothing_is_lost(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    data_dir = write_library(
        synthetic_library(conditions=4, perturbations=50), tmp_path / "data"
    )  # 200 items
    library = load_library(data_dir, known_checks=CHECKS.keys())
    settings = cluster_settings(tmp_path, data_dir, postgres_url, redis_url, shard_size=100)
    deps = make_deps(settings, library)
    log = tmp_path / "workers.log"
    env = worker_env(settings, HELMBENCH_STOP_GRACE_S=str(GRACE_S), HELMBENCH_SHARD_LEASE_S="60")
    workers: list[subprocess.Popen[bytes]] = []
    with mock_process(latency=0.3) as base_url:
        evaluation = create_evaluation(deps, base_url=base_url + "/v1", concurrency=4)
        enqueue_shards(settings, evaluation)
        try:
            first = start_worker(env, log)
            workers.append(first)
            wait_until(lambda: written(deps, evaluation.id).rows >= 8, 90, "the worker to write items")
            first.send_signal(signal.SIGTERM)
            first.wait(GRACE_S + 15)  # bounded: the grace for calls in flight, then the hand-back
            at_stop = written(deps, evaluation.id)
            assert at_stop.rows == at_stop.distinct_keys < 200

            # With a 60 s lease, only a release at stop lets the shards run again now.
            states = asyncio.run(_shard_states(settings.redis_url or "", settings.queue_name, evaluation.id))
            assert states == {0: "queued", 1: "queued"}
            slots = Redis.from_url(redis_url).zcard(
                limits_key(settings.queue_name, evaluation.target_id, "slots")
            )
            assert slots == 0

            workers.append(start_worker(env, log))
            wait_until(
                lambda: evaluation_status(settings, evaluation.id) == "succeeded", 120, "the evaluation"
            )
        finally:
            stop_workers(workers)
    result = written(deps, evaluation.id)
    deps.engine.dispose()
    assert result.rows == result.distinct_keys == result.answered == 200
    text = log.read_text()
    assert "shard handed back" in text
    assert not log_problems(log), log_problems(log)


async def _shard_states(redis_url: str, queue_name: str, evaluation_id: str) -> dict[int, str]:
    queue = await ArqQueue.connect(redis_url, queue_name)
    try:
        return await queue.shard_states(evaluation_id, [0, 1])
    finally:
        await queue.close()
