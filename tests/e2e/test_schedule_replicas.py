"""Two API replicas and two workers, one PostgreSQL and one Redis: a one-minute schedule starts each due tick
exactly once, and keeps doing so after one replica is killed with SIGKILL midway.

Every process is real (`helmbench serve`, `helmbench worker`, the example target) and claims ticks the way
production does; only schedule time runs fast (HELMBENCH_SCHEDULER_CLOCK_RATE, shared by all four), so ten
one-minute ticks take under a minute of wall time.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psycopg
import pytest

from bench.ports import free_port, wait_http
from tests.e2e.conftest import HELMBENCH, running
from tests.worker_processes import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(420)]

TICKS = 10
RATE = 15  # one schedule minute = 4 s of wall time: room for a loaded machine to poll several times per tick
STARTED = re.compile(r"evaluation_id\W+(ev_[0-9a-f]+)")
PROCESSES = ("api-a", "api-b", "worker-1", "worker-2")


def scheduled(postgres_url: str, schedule_id: str) -> list[tuple[str, datetime, str]]:
    """(evaluation id, tick, status) of every evaluation the schedule started, by tick."""
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute(
            "SELECT id, scheduled_for, status FROM evaluation WHERE schedule_id = %s ORDER BY scheduled_for",
            (schedule_id,),
        ).fetchall()
    return [(i, t.replace(tzinfo=UTC) if t.tzinfo is None else t, s) for i, t, s in rows]


def started_by(log: Path) -> list[str]:
    """The evaluations a process's log says it started for a schedule (JSON lines or console lines)."""
    lines = log.read_text().splitlines()
    return [m[1] for line in lines if "scheduled run started" in line and (m := STARTED.search(line))]


def test_two_replicas_and_two_workers_start_each_of_ten_ticks_once_through_a_sigkill(
    tmp_path: Path,
    redis_url: str,
    postgres_url: str,
    mini_data_dir: Path,
    http_clients: Callable[..., httpx.Client],
) -> None:
    ports = {name: free_port() for name in ("api-a", "api-b", "toy")}
    env = {
        "HELMBENCH_VAR_DIR": str(tmp_path / "var"),
        "HELMBENCH_DATA_DIR": str(mini_data_dir),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8",
        "HELMBENCH_DATABASE_URL": postgres_url,
        "HELMBENCH_REDIS_URL": redis_url,
        "HELMBENCH_QUEUE_NAME": f"helmbench:test:{ports['api-a']}:{os.getpid()}",
        "HELMBENCH_SECRET_KEYS": "IDfcpEK6XcFmnkHnuF_eK6t38mvjj7kbUwKxKiPEw-o=",
        "HELMBENCH_SCHEDULER_PERIOD_S": "0.25",
        "HELMBENCH_SCHEDULER_CLOCK_RATE": str(RATE),
        "HELMBENCH_SCHEDULER_CLOCK_EPOCH": datetime.now(UTC).isoformat(),
        "HELMBENCH_RECONCILE_PERIOD_S": "1",
        "HELMBENCH_MAX_ACTIVE_EVALUATIONS": "100",
        "HELMBENCH_RATE_PER_MINUTE": "0",
        "PYTHONUNBUFFERED": "1",  # a SIGKILLed process's log keeps every line it wrote
    }
    subprocess.run([HELMBENCH, "db", "upgrade"], env={**os.environ, **env}, check=True, capture_output=True)
    logs = {name: tmp_path / f"{name}.log" for name in PROCESSES}
    with ExitStack() as stack:
        stack.enter_context(
            running([HELMBENCH, "example-target", "--port", str(ports["toy"])], env, tmp_path / "toy.log")
        )
        procs = {
            name: stack.enter_context(
                running(
                    [HELMBENCH, "serve", "--port", str(ports[name])]
                    if name.startswith("api")
                    else [HELMBENCH, "worker"],
                    env,
                    logs[name],
                )
            )
            for name in PROCESSES
        }
        for name in ("api-a", "api-b"):
            wait_http(f"http://127.0.0.1:{ports[name]}/healthz")
        wait_http(f"http://127.0.0.1:{ports['toy']}/v1/models")
        key = (tmp_path / "var" / "admin.key").read_text().strip()
        auth = {"Authorization": f"Bearer {key}"}
        api_a = http_clients(base_url=f"http://127.0.0.1:{ports['api-a']}", headers=auth, timeout=10)
        api_b = http_clients(base_url=f"http://127.0.0.1:{ports['api-b']}", headers=auth, timeout=10)
        target = api_a.post(
            "/v1/targets",
            json={"name": "toy", "base_url": f"http://127.0.0.1:{ports['toy']}/v1", "model": "t"},
        ).json()
        created = api_a.post(
            "/v1/schedules", json={"target_id": target["id"], "suite": "quick", "every_minutes": 1}
        )
        assert created.status_code == 201, created.text
        schedule = created.json()

        wait_until(lambda: len(scheduled(postgres_url, schedule["id"])) >= TICKS // 2, 120, "half the ticks")
        os.killpg(procs["api-a"].pid, signal.SIGKILL)  # midway, whatever it is doing
        procs["api-a"].wait()
        # Tick TICKS + 1 started means ticks 1..TICKS are all decided.
        wait_until(lambda: len(scheduled(postgres_url, schedule["id"])) > TICKS, 120, "every tick")
        paused = api_b.patch(f"/v1/schedules/{schedule['id']}", json={"paused": True})
        assert paused.status_code == 200, paused.text
        wait_until(
            lambda: all(s == "succeeded" for _, _, s in scheduled(postgres_url, schedule["id"])),
            120,
            "the workers to finish every scheduled run",
        )
        runs = scheduled(postgres_url, schedule["id"])

    anchor = datetime.fromisoformat(schedule["created_at"]).replace(microsecond=0)
    anchor = anchor if anchor.tzinfo else anchor.replace(tzinfo=UTC)
    due = [anchor + timedelta(minutes=m) for m in range(1, TICKS + 1)]
    per_tick = Counter(tick for _, tick, _ in runs)
    assert [per_tick[t] for t in due] == [1] * TICKS, per_tick
    assert max(per_tick.values()) == 1 and all(
        (t - anchor) % timedelta(minutes=1) == timedelta() for t in per_tick
    )

    # Exactly one process says it started each run, and the killed replica's claims left no orphan.
    starters = {name: started_by(logs[name]) for name in PROCESSES}
    claimed = Counter(ev for ids in starters.values() for ev in ids)
    assert set(claimed) == {ev for ev, _, _ in runs} and set(claimed.values()) == {1}
    assert sum(len(starters[n]) for n in ("api-b", "worker-1", "worker-2")) > 0  # survivors took over
