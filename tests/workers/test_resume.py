"""SIGKILL a `helmbench worker` mid-evaluation; other workers resume its shards; each item is written once."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from app.benchmark.loader import load_library
from app.config import Settings
from app.grading.checks import CHECKS
from app.store.models import EvaluationItem
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

LEASE_S = 3.0
LATENCY_S = 0.5  # slow enough that the first worker is still at it when the others have started


def _count(settings: Settings, evaluation_id: str) -> int:
    from app.store.db import make_engine

    engine = make_engine(settings)
    try:
        with Session(engine) as session:
            where = EvaluationItem.evaluation_id == evaluation_id
            return int(session.exec(select(func.count()).select_from(EvaluationItem).where(where)).one())
    finally:
        engine.dispose()


def test_sigkilled_worker_is_resumed_by_others_each_item_once(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    data_dir = write_library(
        synthetic_library(conditions=6, perturbations=50), tmp_path / "data"
    )  # 300 items
    library = load_library(data_dir, known_checks=CHECKS.keys())
    settings = cluster_settings(tmp_path, data_dir, postgres_url, redis_url, shard_size=50)
    deps = make_deps(settings, library)
    workers: list[subprocess.Popen[bytes]] = []
    log = tmp_path / "workers.log"
    with mock_process(latency=LATENCY_S) as base_url:
        evaluation = create_evaluation(deps, base_url=base_url + "/v1", concurrency=4)
        assert evaluation.total == 300 and evaluation.shards == 6

        assert enqueue_shards(settings, evaluation) == 6
        env = worker_env(
            settings,
            HELMBENCH_SHARD_LEASE_S=str(LEASE_S),
            HELMBENCH_WORKER_MAX_JOBS="6",
            HELMBENCH_LOG_LEVEL="info",
        )
        try:
            victim = start_worker(env, log)
            workers.append(victim)
            # It holds all six shards (max_jobs 6), so the two others, started now, wait with nothing to run;
            # kill it once it has written some items but not all, and once they are polling.
            wait_until(lambda: _count(settings, evaluation.id) >= 40, 60, "the first worker to write items")
            workers += [start_worker(env, log), start_worker(env, log)]
            wait_until(lambda: log.read_text().count('"worker started"') == 3, 120, "the others to start")
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait(10)
            killed_at, at_kill = time.monotonic(), _count(settings, evaluation.id)
            assert at_kill < 300
            wait_until(
                lambda: evaluation_status(settings, evaluation.id) == "succeeded",
                120,
                "the evaluation to finish",
            )
            resumed_in = time.monotonic() - killed_at
        finally:
            stop_workers(workers)
    result = written(deps, evaluation.id)
    deps.engine.dispose()
    assert result.rows == result.distinct_keys == 300, log.read_text()[-3000:]
    assert result.answered == 300
    # The rest takes ~(300 - at_kill) * LATENCY_S / 4 at concurrency 4; the lease adds LEASE_S, not job_timeout
    # (and the dead worker's target slots come back before that: its connection closed).
    assert resumed_in < LEASE_S + (300 - at_kill) * LATENCY_S / 4 * 1.5 + 20
