"""The classification suite on the scale-out path: submitted with the CLI, run by two arq workers on PostgreSQL."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.e2e.conftest import HELMBENCH, poll_until_done, scaled_out
from tests.worker_processes import shards_finished

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


def test_classification_suite_through_arq_workers_on_postgres(
    tmp_path: Path, redis_url: str, postgres_url: str, http_clients: Callable[..., httpx.Client]
) -> None:
    with scaled_out(tmp_path, redis_url, postgres_url, shard_size=200) as deployment:
        base, key, toy_port, env = deployment.base, deployment.key, deployment.toy_port, deployment.env
        submitted = subprocess.run(
            [
                HELMBENCH,
                "submit",
                "--url",
                base,
                "--key",
                key,
                "--name",
                "toy",
                "--base-url",
                f"http://127.0.0.1:{toy_port}/v1",
                "--model",
                "toy",
                "--suite",
                "classification",
            ],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        evaluation_id = submitted.stdout.strip()
        api = http_clients(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10)
        done = poll_until_done(api, evaluation_id)
        assert done["status"] == "succeeded" and done["suite"] == "classification", done
        total = done["progress"]["total"]
        report = api.get(f"/v1/evaluations/{evaluation_id}/report").json()
    section = report["classification"]
    # the toy labels by its keywords: every call answered, with a few right and most crises missed
    assert section["n_answered"] == total == sum(map(sum, section["confusion"]["cells"]))
    assert section["outside"]["count"] == 0
    assert 0 < section["kappa"]["value"] < 1
    with psycopg.connect(postgres_url) as conn:
        rows, keys = conn.execute(
            "SELECT count(*), count(DISTINCT key) FROM evaluation_item WHERE evaluation_id = %s",
            (evaluation_id,),
        ).fetchone()
    assert rows == keys == total
    shards_run = shards_finished(tmp_path / "worker1.log") | shards_finished(tmp_path / "worker2.log")
    assert shards_run == set(range(-(-total // 200)))  # every shard ran on a worker, none in the API
