"""The embedded default started as `make run` starts it: one process, SQLite under var/, jobs in-process."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx

from bench.ports import free_port, wait_http
from tests.e2e.conftest import HELMBENCH, poll_until_done, running, wait_for_board


def test_walkthrough_on_the_embedded_default(tmp_path: Path) -> None:
    api_port, toy_port = free_port(), free_port()
    env = {
        "HELMBENCH_VAR_DIR": str(tmp_path / "var"),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8,::1,localhost",
    }
    for name in ("HELMBENCH_DATABASE_URL", "HELMBENCH_REDIS_URL"):
        env[name] = ""
    with (
        running([HELMBENCH, "example-target", "--port", str(toy_port)], env, tmp_path / "toy.log"),
        running(
            [HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(api_port)], env, tmp_path / "api.log"
        ),
    ):
        base = f"http://127.0.0.1:{api_port}"
        wait_http(f"{base}/readyz")  # 503 naming the queue until the local worker takes jobs
        wait_http(f"http://127.0.0.1:{toy_port}/v1/models")
        key_file = tmp_path / "var" / "admin.key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert (tmp_path / "var" / "helmbench.db").exists()
        key = key_file.read_text().strip()
        assert key in (tmp_path / "api.log").read_text()  # printed once on first start
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10) as api:
            assert api.get("/readyz").json()["status"] == "ready"
            target = api.post(
                "/v1/targets",
                json={
                    "name": "toy bot",
                    "base_url": f"http://127.0.0.1:{toy_port}/v1",
                    "model": "helmbench-toy-bot",
                },
            )
            assert target.status_code == 201, target.text
            started = api.post(
                "/v1/evaluations",
                json={"target_id": target.json()["id"], "suite": "quick", "visibility": "public"},
            )
            assert started.status_code == 202
            done = poll_until_done(api, started.json()["id"])
            assert done["status"] == "succeeded", done
            assert done["progress"]["done"] == done["progress"]["total"] > 0
            board = wait_for_board(base, [done["id"]])
            assert [e["evaluation_id"] for e in board["entries"]] == [done["id"]]
            report = api.get(f"/v1/evaluations/{done['id']}/report").json()
            assert set(report["by_pillar"]) == {"P1", "P2", "P3", "P4"}
