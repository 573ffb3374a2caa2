"""Two `helmbench worker` processes run shards of one evaluation; the target sees at most its max_concurrency."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from app.benchmark.loader import load_library
from app.config import Settings
from app.grading.checks import CHECKS
from app.queue.arq_queue import ArqQueue
from app.store.models import Evaluation
from bench.harness import create_evaluation, make_deps, written
from bench.mockproc import mock_process
from bench.synthetic import synthetic_library, write_library
from tests.e2e.conftest import HELMBENCH

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(180)]

CONCURRENCY = 3


def _status(settings: Settings, evaluation_id: str) -> str:
    from app.store.db import make_engine

    engine = make_engine(settings)
    try:
        with Session(engine) as session:
            return session.exec(select(Evaluation.status).where(Evaluation.id == evaluation_id)).one()
    finally:
        engine.dispose()


def _shards_run(log: Path) -> set[int]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return {line["shard"] for line in lines if line.get("event") == "shard finished"}


def test_two_workers_together_stay_within_the_target_max_concurrency(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    data_dir = write_library(
        synthetic_library(conditions=4, perturbations=30), tmp_path / "data"
    )  # 120 items
    queue_name = f"helmbench:test:{uuid.uuid4().hex[:8]}"
    settings = Settings(
        var_dir=tmp_path / "var",
        data_dir=data_dir,
        database_url=postgres_url,
        redis_url=redis_url,
        target_allowlist="127.0.0.0/8",
        shard_size=15,
        queue_name=queue_name,
    )
    deps = make_deps(settings, load_library(data_dir, known_checks=CHECKS.keys()))
    env = {
        **os.environ,
        "HELMBENCH_DATABASE_URL": postgres_url,
        "HELMBENCH_REDIS_URL": redis_url,
        "HELMBENCH_DATA_DIR": str(data_dir),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8",
        "HELMBENCH_SHARD_SIZE": "15",
        "HELMBENCH_QUEUE_NAME": queue_name,
        "HELMBENCH_WORKER_MAX_JOBS": "2",  # each worker alone would call the target 3 at a time
        "HELMBENCH_VAR_DIR": str(tmp_path / "var"),
    }
    logs = [tmp_path / "worker1.log", tmp_path / "worker2.log"]
    with mock_process(latency=0.2) as base_url:
        evaluation = create_evaluation(deps, base_url=base_url + "/v1", concurrency=CONCURRENCY)
        assert evaluation.shards == 8

        async def enqueue() -> int:
            queue = await ArqQueue.connect(redis_url, queue_name)
            try:
                return await queue.enqueue_shards(evaluation.id, evaluation.shards)
            finally:
                await queue.close()

        assert asyncio.run(enqueue()) == 8
        workers = []
        for log in logs:
            with log.open("wb") as out:
                workers.append(
                    subprocess.Popen([HELMBENCH, "worker"], env=env, stdout=out, stderr=subprocess.STDOUT)
                )
        try:
            deadline = time.monotonic() + 120
            while _status(settings, evaluation.id) != "succeeded":
                assert time.monotonic() < deadline, "the evaluation did not finish in 120 s"
                time.sleep(0.3)
        finally:
            for proc in workers:
                proc.send_signal(signal.SIGTERM)
            for proc in workers:
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        stats = httpx.get(base_url + "/stats").json()
    result = written(deps, evaluation.id)
    deps.engine.dispose()
    runs = [_shards_run(log) for log in logs]
    assert all(runs) and set.union(*runs) == set(range(8))  # both workers ran shards
    assert result.answered == result.rows == 120
    assert stats["max_in_flight"] == CONCURRENCY  # without a shared gate: up to 2 x 3
