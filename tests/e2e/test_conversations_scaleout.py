"""The conversations suite on the scale-out path: the API enqueues to Redis, two `helmbench worker` processes
play the conversations on PostgreSQL, by the same job function as the embedded default."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.e2e.conftest import poll_until_done, scaled_out
from tests.worker_processes import shards_finished

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


def test_conversations_suite_through_arq_workers_on_postgres(
    tmp_path: Path, redis_url: str, postgres_url: str, http_clients: Callable[..., httpx.Client]
) -> None:
    with scaled_out(tmp_path, redis_url, postgres_url, shard_size=10) as deployment:
        base, key, toy_port = deployment.base, deployment.key, deployment.toy_port
        api = http_clients(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10)
        target = api.post(
            "/v1/targets", json={"name": "toy", "base_url": f"http://127.0.0.1:{toy_port}/v1", "model": "toy"}
        ).json()
        evaluation = api.post(
            "/v1/evaluations", json={"target_id": target["id"], "suite": "conversations"}
        ).json()
        done = poll_until_done(api, evaluation["id"])
        assert done["status"] == "succeeded", done
        total = done["progress"]["total"]
        report = api.get(f"/v1/evaluations/{evaluation['id']}/report").json()
        section = report["conversations"]
        assert section["n"] == section["n_graded"] == total >= 30
        assert report["headline"]["score"] is not None
        first = api.get(f"/v1/evaluations/{evaluation['id']}/results", params={"limit": 1}).json()["items"][0]
        assert len(first["checks"]["conversation"]["turns"]) >= 3
    with psycopg.connect(postgres_url) as conn:
        rows, keys, turns = conn.execute(
            "SELECT count(*), count(DISTINCT key), min(json_array_length((checks->'conversation'->'turns')::json)) "
            "FROM evaluation_item WHERE evaluation_id = %s",
            (evaluation["id"],),
        ).fetchone()
    assert rows == keys == total and turns >= 3
    shards_run = shards_finished(tmp_path / "worker1.log") | shards_finished(tmp_path / "worker2.log")
    assert shards_run == set(range(-(-total // 10)))  # every shard ran on a worker, none in the API
