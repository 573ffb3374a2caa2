"""Scale-out: the API enqueues to Redis, two `helmbench worker` processes run the shards on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import httpx
import psycopg
import pytest

from tests.e2e.conftest import poll_until_done, scaled_out
from tests.worker_processes import shards_finished

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


def test_quick_suite_through_arq_workers_on_postgres(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    with scaled_out(tmp_path, redis_url, postgres_url, shard_size=40) as deployment:
        base, key, toy_port = deployment.base, deployment.key, deployment.toy_port
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10) as api:
            assert api.get("/readyz").json() == {"status": "ready", "database": "ok", "queue": "ok"}
            target = api.post(
                "/v1/targets",
                json={"name": "toy", "base_url": f"http://127.0.0.1:{toy_port}/v1", "model": "toy"},
            ).json()
            evaluation = api.post(
                "/v1/evaluations", json={"target_id": target["id"], "suite": "quick"}
            ).json()
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
