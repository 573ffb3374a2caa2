"""A deployment the benchmarks start and stop: `helmbench serve` and N `helmbench worker` processes, on the
embedded default or scaled out on Redis and a fresh PostgreSQL database of the run's own (dropped after)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench.ports import free_port, wait_http
from bench.redis_server import OwnRedis

HELMBENCH = str(Path(sys.executable).with_name("helmbench"))
WORKER_STARTED = '"worker started"'  # the line a worker logs at info once it takes jobs


def environment(root: Path) -> dict[str, str]:
    """The embedded default under `root` (its var dir, bytecode cached as an installed image has it), no judge."""
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "PYTHONPYCACHEPREFIX": str(root / "pycache"),
        "HELMBENCH_VAR_DIR": str(root / "var"),
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
        "HELMBENCH_LOG_LEVEL": "warning",
    }
    for name in ("HELMBENCH_JUDGE_BASE_URL", "HELMBENCH_JUDGE_MODEL", "HELMBENCH_JUDGES"):
        env.pop(name, None)
    return env


@contextlib.contextmanager
def fresh_database(postgres_url: str, prefix: str) -> Iterator[str]:
    """A new database on the server `postgres_url` names; yields its URL and drops it after, connections or not."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{postgres_url.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def scale_out(
    env: dict[str, str], root: Path, postgres_url: str, redis_url: str | None, prefix: str
) -> Iterator[dict[str, str]]:
    """`env` turned into a scale-out deployment's: a fresh, migrated database, Redis (`redis_url`, else a
    redis-server of the run's own) and a queue name of the run's own, so a shared Redis keeps runs apart."""
    with fresh_database(postgres_url, prefix) as database, contextlib.ExitStack() as stack:
        redis = redis_url or stack.enter_context(OwnRedis(root / "redis")).url
        scaled = env | {
            "HELMBENCH_DATABASE_URL": database,
            "HELMBENCH_REDIS_URL": redis,
            "HELMBENCH_QUEUE_NAME": f"helmbench:bench:{database.rpartition('/')[2]}",
        }
        subprocess.run([HELMBENCH, "db", "upgrade"], env=scaled, check=True, capture_output=True)
        yield scaled


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM all at once (in-flight work is handed back), then SIGKILL any still there after a minute."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Deployment:
    url: str
    api: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]
    admin_key: str


def wait_started(logs: list[Path], procs: list[subprocess.Popen[bytes]], timeout: float = 180) -> None:
    """Until every worker has logged that it takes jobs: a run timed from its first request then measures
    workers at work, not their imports."""
    deadline = time.monotonic() + timeout
    while not all(WORKER_STARTED in log.read_text(errors="replace") for log in logs):
        if dead := [p.args for p in procs if p.poll() is not None]:
            raise RuntimeError(f"a worker exited before it started: {dead} (logs in {logs[0].parent})")
        if time.monotonic() > deadline:
            raise TimeoutError(f"workers did not start in {timeout}s (logs in {logs[0].parent})")
        time.sleep(0.1)


@contextlib.contextmanager
def running(env: dict[str, str], root: Path, workers: int, port: int | None = None) -> Iterator[Deployment]:
    """`helmbench serve` and `workers` `helmbench worker` processes (logs under `root`), up and ready; stopped
    after. Workers log at info, which adds a few lines per shard, to say when they are ready."""
    port = port or free_port()
    api = start([HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(port)], env, root / "serve.log")
    procs = [api]
    try:
        logs = [root / f"worker{n}.log" for n in range(workers)]
        procs += [start([HELMBENCH, "worker"], env | {"HELMBENCH_LOG_LEVEL": "info"}, log) for log in logs]
        url = f"http://127.0.0.1:{port}"
        wait_http(f"{url}/healthz", timeout=180)
        if logs:
            wait_started(logs, procs[1:])
        admin_key = (Path(env["HELMBENCH_VAR_DIR"]) / "admin.key").read_text().strip()
        yield Deployment(url, api, procs[1:], admin_key)
    finally:
        stop(procs)
