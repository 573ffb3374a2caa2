"""Fair shares on the scale-out: two `helmbench worker`s busy with a big run take a small run queued later
between the big run's shards, not after all of them (app/queue/fair.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from app.benchmark.loader import load_library
from app.benchmark.schema import SuiteSpec
from app.grading.checks import CHECKS
from bench.harness import create_evaluation, make_deps, written
from bench.mockproc import mock_process
from bench.synthetic import synthetic_library, write_library
from tests.worker_processes import (
    cluster_settings,
    enqueue_shards,
    evaluation_status,
    start_worker,
    stop_workers,
    wait_until,
    worker_env,
)

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(240)]

SHARD_SIZE = 20


def test_two_workers_run_a_small_run_queued_behind_a_big_one_before_the_big_one_is_half_done(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    library = synthetic_library(conditions=6, perturbations=100)  # the big run: 600 items, 30 shards
    library.suites["quick"] = SuiteSpec(
        description="one shard",
        conditions_per_scenario=1,
        perturbations_per_scenario=10,
        include_no_context=False,
    )
    data_dir = write_library(library, tmp_path / "data")
    settings = cluster_settings(tmp_path, data_dir, postgres_url, redis_url, shard_size=SHARD_SIZE)
    deps = make_deps(settings, load_library(data_dir, known_checks=CHECKS.keys()))
    env = worker_env(settings, HELMBENCH_WORKER_MAX_JOBS="1", HELMBENCH_LOG_LEVEL="info")
    log = tmp_path / "workers.log"
    workers: list[subprocess.Popen[bytes]] = []
    with mock_process(latency=0.1) as big_url, mock_process(latency=0.0) as small_url:
        big = create_evaluation(deps, base_url=big_url + "/v1", concurrency=2)
        small = create_evaluation(deps, base_url=small_url + "/v1", concurrency=4, suite="quick")
        assert (big.total, big.shards, small.total, small.shards) == (600, 30, 10, 1)
        try:
            assert enqueue_shards(settings, big) == 30
            workers = [start_worker(env, log), start_worker(env, log)]
            wait_until(lambda: written(deps, big.id).rows > 0, 120, "the big run to write its first items")
            assert enqueue_shards(settings, small) == 1
            wait_until(
                lambda: evaluation_status(settings, small.id) == "succeeded", 120, "the small run to finish"
            )
            big_done = written(deps, big.id).rows
        finally:
            stop_workers(workers)
    deps.engine.dispose()
    # First come, first served, the small run's shard waited for all 30 of the big run's to start (>= 560 items).
    assert big_done < big.total // 2, log.read_text()[-3000:]
