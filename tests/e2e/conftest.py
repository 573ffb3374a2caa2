"""Helpers to run the real commands as subprocesses, the way `make run` and production start them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.waits import eventually, settled

HELMBENCH = str(Path(sys.executable).with_name("helmbench"))


def production_env() -> dict[str, str]:
    """This process's environment without the tests' in-process override (tests/conftest.py)."""
    return {k: v for k, v in os.environ.items() if k != "HELMBENCH_LOCAL_WORKER"}


@contextmanager
def running(
    args: list[str], env: dict[str, str], log: Path, *, cwd: Path | None = None, inherit: bool = True
) -> Iterator[subprocess.Popen[bytes]]:
    """Start a command, yield it, and always stop it (SIGTERM, then SIGKILL). `inherit=False`: `env` is the
    whole environment, as a new user's shell would have it."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args,
            env={**production_env(), **env} if inherit else env,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


def poll_until_done(api: httpx.Client, evaluation_id: str, timeout: float = 120) -> dict:
    return settled(api, evaluation_id, timeout=timeout, every=0.25)


def wait_for_board(base: str, evaluation_ids: list[str], timeout: float = 60) -> dict:
    """The public board once it shows these evaluations: a server renders it again in the background after a
    change (serving the previous one meanwhile), and every view of one change is published together."""
    return eventually(
        lambda: httpx.get(f"{base}/v1/leaderboard").json(),
        lambda board: set(evaluation_ids) <= {e["evaluation_id"] for e in board["entries"]},
        what=f"the board to show {evaluation_ids}",
        timeout=timeout,
        every=0.1,
    )


@pytest.fixture
def http_clients() -> Iterator[Callable[..., httpx.Client]]:
    """Makes httpx clients for a test and closes every one at its end, however the test ends."""
    made: list[httpx.Client] = []

    def client(**options: Any) -> httpx.Client:
        made.append(httpx.Client(**options))
        return made[-1]

    yield client
    for each in made:
        each.close()


@dataclass(frozen=True)
class ScaledOut:
    """A scale-out deployment started for a test: its API, admin key, toy target, and the env its commands got."""

    base: str
    key: str
    toy_port: int
    sim_port: int | None
    env: dict[str, str]


@contextmanager
def scaled_out(
    tmp_path: Path, redis_url: str, postgres_url: str, *, shard_size: int, simulator: bool = False
) -> Iterator[ScaledOut]:
    """The production shape on one machine: a migrated PostgreSQL database, Redis, `helmbench serve`, two
    `helmbench worker` processes (logs in tmp_path/worker1.log and worker2.log), the toy target and, when asked,
    the toy simulator; all stopped when the block ends."""
    from bench.ports import free_port, wait_http

    api_port, toy_port = free_port(), free_port()
    sim_port = free_port() if simulator else None
    env = {
        "HELMBENCH_VAR_DIR": str(tmp_path / "var"),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8",
        "HELMBENCH_DATABASE_URL": postgres_url,
        "HELMBENCH_REDIS_URL": redis_url,
        "HELMBENCH_SHARD_SIZE": str(shard_size),
        "HELMBENCH_SECRET_KEYS": "IDfcpEK6XcFmnkHnuF_eK6t38mvjj7kbUwKxKiPEw-o=",
    }
    subprocess.run([HELMBENCH, "db", "upgrade"], env={**os.environ, **env}, check=True, capture_output=True)
    with ExitStack() as stack:
        stack.enter_context(
            running([HELMBENCH, "example-target", "--port", str(toy_port)], env, tmp_path / "toy.log")
        )
        if sim_port is not None:
            stack.enter_context(
                running([HELMBENCH, "example-simulator", "--port", str(sim_port)], env, tmp_path / "sim.log")
            )
        stack.enter_context(running([HELMBENCH, "serve", "--port", str(api_port)], env, tmp_path / "api.log"))
        for n in (1, 2):
            stack.enter_context(running([HELMBENCH, "worker"], env, tmp_path / f"worker{n}.log"))
        base = f"http://127.0.0.1:{api_port}"
        wait_http(f"{base}/healthz")
        for port in (toy_port, sim_port):
            if port is not None:
                wait_http(f"http://127.0.0.1:{port}/v1/models")
        key = (tmp_path / "var" / "admin.key").read_text().strip()
        yield ScaledOut(base, key, toy_port, sim_port, env)
