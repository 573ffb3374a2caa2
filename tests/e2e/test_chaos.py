"""Chaos: a scale-out evaluation through worker SIGKILLs, Redis restarted empty and a 10 s database outage.

Two `helmbench worker` processes reach PostgreSQL through a cuttable proxy and a Redis of the test's own (a
`redis-server` without persistence, so a restart loses every key). Each fault fires when the store holds a given
share of the items (events, not clocks); each run must end `succeeded` with every item stored once and answered.
The full suite x3 with 20 kills runs in bench/chaos.py; this is the small library, for CI.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.benchmark.loader import load_library
from app.config import Settings
from app.grading.checks import CHECKS
from app.runner.runtime import Runtime
from bench.harness import create_evaluation, make_deps, written
from bench.mockproc import mock_process
from bench.redis_server import OwnRedis
from bench.synthetic import synthetic_library, write_library
from bench.tcp_proxy import CuttablePostgres
from tests.conftest import fresh_postgres_database
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

pytestmark = [pytest.mark.slow, pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(900)]

ITEMS = 300
OUTAGE_S = 10.0


@dataclass
class Cluster:
    settings: Settings  # what the test reads with: the database directly, not through the proxy
    deps: Runtime
    redis: OwnRedis
    proxy: CuttablePostgres
    env: dict[str, str]
    log: Path
    base_url: str
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    kills: int = 0

    def live(self) -> list[subprocess.Popen[bytes]]:
        return [w for w in self.workers if w.poll() is None]

    def kill_one(self) -> None:
        """SIGKILL the longest-running live worker and start its replacement at once."""
        victim = self.live()[0]
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(10)
        self.kills += 1
        self.workers.append(start_worker(self.env, self.log))

    def database_outage(self) -> None:
        """Drop every connection and refuse new ones for OUTAGE_S, then let them through again."""
        self.proxy.cut()
        time.sleep(OUTAGE_S)
        self.proxy.restore()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("chaos")
    data_dir = write_library(synthetic_library(conditions=6, perturbations=50), tmp / "data")  # 300 items
    library = load_library(data_dir, known_checks=CHECKS.keys())
    with (
        fresh_postgres_database() as postgres_url,
        OwnRedis(tmp / "redis") as redis,
        mock_process(latency=0.1) as base,
    ):
        proxy = CuttablePostgres(postgres_url)
        settings = cluster_settings(tmp, data_dir, postgres_url, redis.url, shard_size=25)
        deps = make_deps(settings, library)
        through_proxy = settings.model_copy(update={"database_url": proxy.url})
        env = worker_env(
            through_proxy,
            HELMBENCH_SHARD_LEASE_S="3",
            HELMBENCH_RECONCILE_PERIOD_S="1",
            HELMBENCH_DB_RETRY_S="4",  # shorter than the outage: shards fail loudly and run again
            HELMBENCH_WORKER_MAX_JOBS="4",
            HELMBENCH_LOG_LEVEL="warning",
        )
        found = Cluster(settings, deps, redis, proxy, env, tmp / "workers.log", base + "/v1")
        found.workers += [start_worker(env, found.log), start_worker(env, found.log)]
        try:
            yield found
        finally:
            stop_workers(found.workers)
            proxy.close()
            deps.engine.dispose()


def _run_through(cluster: Cluster, faults: list[tuple[float, str]]) -> None:
    """One evaluation; each (share, fault) fires once that share of its items is stored. Then the checks."""
    logged_before = cluster.log.stat().st_size
    evaluation = create_evaluation(cluster.deps, base_url=cluster.base_url, concurrency=8)
    assert evaluation.total == ITEMS
    enqueue_shards(cluster.settings, evaluation)
    for share, fault in faults:
        wait_until(
            lambda share=share: written(cluster.deps, evaluation.id).rows >= share * ITEMS,
            300,
            f"{share:.0%} of the items before {fault}",
        )
        if fault == "kill":
            cluster.kill_one()
        elif fault == "redis":
            cluster.redis.restart_empty()
        elif fault == "database":
            cluster.database_outage()
    settled = ("succeeded", "failed", "cancelled")
    wait_until(lambda: evaluation_status(cluster.settings, evaluation.id) in settled, 300, "the run to end")
    result = written(cluster.deps, evaluation.id)
    assert result.status == "succeeded", cluster.log.read_text()[-3000:]
    assert result.rows == result.distinct_keys == result.answered == ITEMS, result
    problems = log_problems(cluster.log, since=logged_before)
    assert not problems, problems


def test_repeated_worker_kills(cluster: Cluster) -> None:
    _run_through(cluster, [(0.1, "kill"), (0.35, "kill"), (0.6, "kill")])


def test_redis_restarted_empty(cluster: Cluster) -> None:
    _run_through(cluster, [(0.3, "redis")])


def test_a_ten_second_database_outage(cluster: Cluster) -> None:
    _run_through(cluster, [(0.3, "database")])


def test_all_together(cluster: Cluster) -> None:
    _run_through(
        cluster,
        [(0.1, "kill"), (0.25, "redis"), (0.4, "kill"), (0.5, "database"), (0.7, "kill"), (0.8, "redis")],
    )
