"""Scale-out: the API enqueues to Redis, two `helmbench worker` processes run the shards on PostgreSQL."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import psycopg
import pytest

from bench.ports import free_port, wait_http
from tests.e2e.conftest import HELMBENCH, poll_until_done, running
from tests.worker_processes import shards_finished

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


def test_quick_suite_through_arq_workers_on_postgres(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    api_port, toy_port = free_port(), free_port()
    env = {
        "HELMBENCH_VAR_DIR": str(tmp_path / "var"),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8",
        "HELMBENCH_DATABASE_URL": postgres_url,
        "HELMBENCH_REDIS_URL": redis_url,
        "HELMBENCH_SHARD_SIZE": "40",
        "HELMBENCH_SECRET_KEYS": "IDfcpEK6XcFmnkHnuF_eK6t38mvjj7kbUwKxKiPEw-o=",
    }
    subprocess.run([HELMBENCH, "db", "upgrade"], env={**os.environ, **env}, check=True, capture_output=True)
    with (
        running([HELMBENCH, "example-target", "--port", str(toy_port)], env, tmp_path / "toy.log"),
        running([HELMBENCH, "serve", "--port", str(api_port)], env, tmp_path / "api.log"),
        running([HELMBENCH, "worker"], env, tmp_path / "worker1.log"),
        running([HELMBENCH, "worker"], env, tmp_path / "worker2.log"),
    ):
        base = f"http://127.0.0.1:{api_port}"
        wait_http(f"{base}/healthz")
        wait_http(f"http://127.0.0.1:{toy_port}/v1/models")
        key = (tmp_path / "var" / "admin.key").read_text().strip()
        api = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10)
        assert api.get("/readyz").json() == {"status": "ready", "database": "ok", "queue": "ok"}
        target = api.post(
            "/v1/targets", json={"name": "toy", "base_url": f"http://127.0.0.1:{toy_port}/v1", "model": "toy"}
        ).json()
        evaluation = api.post("/v1/evaluations", json={"target_id": target["id"], "suite": "quick"}).json()
        done = poll_until_done(api, evaluation["id"])
        assert done["status"] == "succeeded", done
        total = done["progress"]["total"]
        assert total > 40  # more than one shard
    with psycopg.connect(postgres_url) as conn:
        rows, keys = conn.execute(
            "SELECT count(*), count(DISTINCT key) FROM evaluation_item WHERE evaluation_id = %s",
            (evaluation["id"],),
        ).fetchone()
    assert rows == keys == total
    shards_run = shards_finished(tmp_path / "worker1.log") | shards_finished(tmp_path / "worker2.log")
    assert shards_run == set(range(-(-total // 40)))  # every shard ran on a worker, none in the API
