"""SIGKILL a `helmbench worker` mid-evaluation; other workers resume its shards; each item is written once."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import httpx
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
HOLD_AFTER = 40  # target calls answered before the mock holds the rest: the victim can never finish alone


def _count(settings: Settings, evaluation_id: str) -> int:
    from app.store.db import make_engine

    engine = make_engine(settings)
    try:
        with Session(engine) as session:
            where = EvaluationItem.evaluation_id == evaluation_id
            return int(session.exec(select(func.count()).select_from(EvaluationItem).where(where)).one())
    finally:
        engine.dispose()


def _held(base_url: str) -> int:
    return int(httpx.get(base_url + "/stats").json().get("held", 0))


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
    with mock_process(latency=0.02, hold_after=HOLD_AFTER) as base_url:
        # A held call must outlast the wait for the kill however busy the machine: no timeout turns it into an
        # error item the victim would write.
        evaluation = create_evaluation(
            deps, base_url=base_url + "/v1", concurrency=4, target_fields={"timeout_s": 600.0}
        )
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
            # it is killed once its calls are held at the mock (some items answered, never all) and the others
            # are polling; only then are the held calls let through, to whoever resumes the shards.
            wait_until(lambda: _held(base_url) > 0, 60, "the first worker's calls to be held")
            workers += [start_worker(env, log), start_worker(env, log)]
            wait_until(lambda: log.read_text().count('"worker started"') == 3, 120, "the others to start")
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait(10)
            at_kill = _count(settings, evaluation.id)
            assert at_kill <= HOLD_AFTER
            httpx.post(base_url + "/release")
            wait_until(
                lambda: evaluation_status(settings, evaluation.id) == "succeeded",
                120,
                "the evaluation to finish",
            )
        finally:
            stop_workers(workers)
    result = written(deps, evaluation.id)
    deps.engine.dispose()
    assert result.rows == result.distinct_keys == 300, log.read_text()[-3000:]
    assert result.answered == 300
