"""The application as `helmbench serve` builds it: the admin key made and shown once, the queue the settings ask
for (in this process, a local worker process, or Redis), and a restart that queues unfinished work again."""

from __future__ import annotations

import os
import uuid

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import Settings
from app.limits.shared_api_rate import SharedRateLimiter
from app.main import create_app, requeue_grace_s
from app.queue.arq_queue import ArqQueue
from app.queue.base import lost_shard_grace_s
from app.queue.database import DatabaseQueue
from app.queue.inprocess import InProcessQueue
from app.store.db import make_engine
from app.store.migrate import upgrade
from app.store.models import GradeBatch, Team
from tests.waits import eventually


def test_the_admin_key_is_shown_once_kept_0600_and_works_after_a_restart(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestClient(create_app(settings)):
        pass
    shown = capsys.readouterr().out
    key = settings.admin_key_path.read_text().strip()
    assert f"HELMbench admin key (shown once, also written to {settings.admin_key_path}): {key}" in shown
    assert settings.admin_key_path.stat().st_mode & 0o777 == 0o600
    with TestClient(create_app(settings)) as client:
        assert client.get("/v1/targets", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    assert "admin key" not in capsys.readouterr().out, "never printed again"


def test_embedded_without_a_local_worker_runs_jobs_in_this_process(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        state = client.app.state.helmbench  # type: ignore[attr-defined]
        assert isinstance(state.queue, InProcessQueue) and not isinstance(state.limiter, SharedRateLimiter)
    assert requeue_grace_s(settings) == 0.0, "the embedded queue knows what runs: a restart resumes at once"


def test_the_local_worker_process_starts_with_the_app_and_stops_with_it(settings: Settings) -> None:
    with TestClient(create_app(settings.model_copy(update={"local_worker": True}))) as client:
        state = client.app.state.helmbench  # type: ignore[attr-defined]
        assert isinstance(state.queue, DatabaseQueue)
        pid = eventually(lambda: _child_worker_pid(os.getpid()), what="the local worker process to start")
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def _child_worker_pid(parent: int) -> int | None:
    """A child of this process running `python -m app.workers.local`."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and b"app.workers.local" in command:
            return int(entry)
    return None


@pytest.mark.redis
def test_scale_out_queues_to_redis_and_a_restart_queues_unfinished_batches_again(
    settings: Settings, redis_url: str
) -> None:
    scale_out = settings.model_copy(
        update={"redis_url": redis_url, "queue_name": f"helmbench:test:{uuid.uuid4().hex[:8]}"}
    )
    upgrade(scale_out)
    engine = make_engine(scale_out)
    with Session(engine) as session:
        team = Team(name="t")
        session.add(team)
        session.flush()
        batch = GradeBatch(team_id=team.id, status="running", lines=3, last_line=3)
        session.add(batch)
        session.commit()
        batch_id = batch.id
    engine.dispose()
    with TestClient(create_app(scale_out)) as client:
        state = client.app.state.helmbench  # type: ignore[attr-defined]
        assert isinstance(state.queue, ArqQueue) and isinstance(state.limiter, SharedRateLimiter)
        assert client.portal.call(state.queue.grade_batch_states, batch_id, [0]) == {0: "queued"}
        pool = state.queue._pool
        keys = client.portal.call(lambda: _keys(pool, scale_out.queue_name, batch_id))
        client.portal.call(pool.delete, *keys)
    assert requeue_grace_s(scale_out) == lost_shard_grace_s(scale_out.shard_lease_s) > 0


async def _keys(pool: object, queue_name: str, batch_id: str) -> list[str]:
    found = [k async for k in pool.scan_iter(match=f"*{batch_id}*")]  # type: ignore[attr-defined]
    found += [k async for k in pool.scan_iter(match=f"{queue_name}*")]  # type: ignore[attr-defined]
    return found
