"""The simulated suite on the scale-out path: the API enqueues to Redis, two `helmbench worker` processes play the
persona cards (toy simulator) against the toy bot on PostgreSQL, the simulator's key sealed in the database."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.e2e.conftest import poll_until_done, scaled_out
from tests.worker_processes import shards_finished

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
SIM_KEY = "sk-simulator-scaleout"


def test_simulated_suite_through_arq_workers_on_postgres(
    tmp_path: Path, redis_url: str, postgres_url: str, http_clients: Callable[..., httpx.Client]
) -> None:
    with scaled_out(tmp_path, redis_url, postgres_url, shard_size=40, simulator=True) as deployment:
        base, key, toy_port = deployment.base, deployment.key, deployment.toy_port
        sim_port = deployment.sim_port
        api = http_clients(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10)
        target = api.post(
            "/v1/targets", json={"name": "toy", "base_url": f"http://127.0.0.1:{toy_port}/v1", "model": "toy"}
        ).json()
        simulator = {
            "base_url": f"http://127.0.0.1:{sim_port}/v1",
            "model": "toy-sim",
            "api_key": SIM_KEY,
            "turn_cap": 4,
        }
        evaluation = api.post(
            "/v1/evaluations", json={"target_id": target["id"], "suite": "simulated", "simulator": simulator}
        ).json()
        done = poll_until_done(api, evaluation["id"])
        assert done["status"] == "succeeded", done
        total = done["progress"]["total"]
        report = api.get(f"/v1/evaluations/{evaluation['id']}/report").json()
        section = report["simulated"]
        assert section["n"] == section["n_graded"] == total == 120
        assert section["simulator_errors"]["n"] == 0 and report["headline"]["score"] is not None
    with psycopg.connect(postgres_url) as conn:
        rows, keys, turns, secret = conn.execute(
            "SELECT count(*), count(DISTINCT i.key), "
            "max(json_array_length((i.checks->'conversation'->'turns')::json)), max(e.simulator_api_key_secret) "
            "FROM evaluation_item i JOIN evaluation e ON e.id = i.evaluation_id WHERE i.evaluation_id = %s",
            (evaluation["id"],),
        ).fetchone()
    assert rows == keys == total and 3 <= turns <= 4
    assert secret and SIM_KEY not in secret
    shards_run = shards_finished(tmp_path / "worker1.log") | shards_finished(tmp_path / "worker2.log")
    assert shards_run == set(range(-(-total // 40)))  # every shard ran on a worker, none in the API
