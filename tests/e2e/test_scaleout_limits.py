"""Two `helmbench worker` processes run shards of one evaluation; the target sees at most its max_concurrency."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.benchmark.loader import load_library
from app.grading.checks import CHECKS
from bench.harness import create_evaluation, make_deps, written
from bench.mockproc import mock_process
from bench.synthetic import synthetic_library, write_library
from tests.worker_processes import (
    cluster_settings,
    enqueue_shards,
    evaluation_status,
    shards_finished,
    start_worker,
    stop_workers,
    wait_until,
    worker_env,
)

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(180)]

CONCURRENCY = 3


def test_two_workers_together_stay_within_the_target_max_concurrency(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    data_dir = write_library(
        synthetic_library(conditions=4, perturbations=30), tmp_path / "data"
    )  # 120 items
    settings = cluster_settings(tmp_path, data_dir, postgres_url, redis_url, shard_size=15)
    deps = make_deps(settings, load_library(data_dir, known_checks=CHECKS.keys()))
    env = worker_env(settings, HELMBENCH_WORKER_MAX_JOBS="2")  # alone, each would call the target 3 at a time
    logs = [tmp_path / "worker1.log", tmp_path / "worker2.log"]
    with mock_process(latency=0.2) as base_url:
        evaluation = create_evaluation(deps, base_url=base_url + "/v1", concurrency=CONCURRENCY)
        assert evaluation.shards == 8

        assert enqueue_shards(settings, evaluation) == 8
        workers = [start_worker(env, log) for log in logs]
        try:
            wait_until(
                lambda: evaluation_status(settings, evaluation.id) == "succeeded", 120, "the evaluation"
            )
        finally:
            stop_workers(workers)
        stats = httpx.get(base_url + "/stats").json()
    result = written(deps, evaluation.id)
    deps.engine.dispose()
    runs = [shards_finished(log) for log in logs]
    assert all(runs) and set.union(*runs) == set(range(8))  # both workers ran shards
    assert result.answered == result.rows == 120
    assert stats["max_in_flight"] == CONCURRENCY  # without a shared gate: up to 2 x 3
