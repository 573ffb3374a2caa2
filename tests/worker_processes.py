"""Real `helmbench worker` processes for scale-out tests: their environment, start and stop, the queue they
drain and what their evaluation's row says. The API-driven e2e tests start commands with tests/e2e/conftest.py;
these tests drive the store and the queue directly, as the API would."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from sqlmodel import Session, select

from app.config import Settings
from app.queue.arq_queue import ArqQueue
from app.store.db import make_engine
from app.store.models import Evaluation
from tests.waits import eventually

HELMBENCH = str(Path(sys.executable).with_name("helmbench"))


def cluster_settings(
    tmp_path: Path, data_dir: Path, postgres_url: str, redis_url: str, shard_size: int
) -> Settings:
    """A deployment of its own: a fresh database, a queue name no other test drains, loopback targets allowed."""
    return Settings(
        var_dir=tmp_path / "var",
        data_dir=data_dir,
        database_url=postgres_url,
        redis_url=redis_url,
        target_allowlist="127.0.0.0/8",
        shard_size=shard_size,
        queue_name=f"helmbench:test:{uuid.uuid4().hex[:8]}",
    )


def worker_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment a worker needs to join the deployment `settings` describes."""
    assert settings.database_url and settings.redis_url
    return {
        **os.environ,
        "HELMBENCH_DATABASE_URL": settings.database_url,
        "HELMBENCH_REDIS_URL": settings.redis_url,
        "HELMBENCH_DATA_DIR": str(settings.data_dir),
        "HELMBENCH_TARGET_ALLOWLIST": settings.target_allowlist or "",
        "HELMBENCH_SHARD_SIZE": str(settings.shard_size),
        "HELMBENCH_QUEUE_NAME": settings.queue_name,
        "HELMBENCH_VAR_DIR": str(settings.var_dir),
        **extra,
    }


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A `helmbench worker` writing its JSON log lines to `log` (appended)."""
    with log.open("ab") as out:
        return subprocess.Popen([HELMBENCH, "worker"], env=env, stdout=out, stderr=subprocess.STDOUT)


def stop_workers(workers: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every live worker, then SIGKILL any that has not left within 15 s."""
    for proc in workers:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in workers:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()  # reaped, so no zombie is left and its Popen closes cleanly


def enqueue_shards(settings: Settings, evaluation: Evaluation) -> int:
    """Queue every shard of the evaluation, as the API does on creation; returns how many were queued."""

    async def enqueue() -> int:
        assert settings.redis_url
        queue = await ArqQueue.connect(settings.redis_url, settings.queue_name)
        try:
            return await queue.enqueue_shards(evaluation.id, evaluation.shards)
        finally:
            await queue.close()

    return asyncio.run(enqueue())


def evaluation_status(settings: Settings, evaluation_id: str) -> str:
    """The status column, read afresh (the workers write it from other processes)."""
    engine = make_engine(settings)
    try:
        with Session(engine) as session:
            return session.exec(select(Evaluation.status).where(Evaluation.id == evaluation_id)).one()
    finally:
        engine.dispose()


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Worker processes take seconds to start and work: look five times a second."""
    eventually(predicate, what=what, timeout=timeout, every=0.2)


def shards_finished(log: Path) -> set[int]:
    """The shards a worker's log says it finished."""
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return {line["shard"] for line in lines if line.get("event") == "shard finished"}


def log_problems(log: Path, since: int = 0) -> list[str]:
    """Lines of a worker log that mean a failure was swallowed or a process crashed, from byte `since` on (what
    one test's run wrote, where several share the workers), each with the line after it (the task, the error).

    A shard failing loudly logs its traceback inside a JSON line; a crash prints a bare one."""
    with log.open("rb") as f:
        f.seek(since)
        lines = f.read().decode(errors="replace").splitlines()
    return [
        "\n".join(line[:300] for line in lines[i : i + 2])
        for i, line in enumerate(lines)
        if "never retrieved" in line or line.startswith("Traceback")
    ]
