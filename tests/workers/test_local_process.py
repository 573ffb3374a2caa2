"""`helmbench serve`'s local worker process: it gets exactly the API's settings through its environment, is
started again when it dies, and stops (handing its jobs back) when serve stops it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from app.config import Settings
from app.workers.local_process import LocalWorkerProcess, child_env
from tests.waits import eventually_async


def test_the_child_builds_the_same_settings_from_its_environment(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELMBENCH_WORKER_MAX_JOBS", "99")  # inherited, but not what this API runs with
    monkeypatch.setenv("HELMBENCH_NOT_A_SETTING", "x")
    built = settings.model_copy(update={"worker_max_jobs": 3, "redis_url": None})
    env = child_env(built)
    assert env["HELMBENCH_WORKER_MAX_JOBS"] == "3" and "HELMBENCH_NOT_A_SETTING" not in env
    assert "HELMBENCH_REDIS_URL" not in env, "an unset setting stays unset"
    assert env["PATH"] == os.environ["PATH"], "the rest of the environment is inherited"
    for name in [k for k in os.environ if k.startswith("HELMBENCH_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert Settings().model_dump() == built.model_dump()


async def test_a_dead_worker_is_started_again_and_stop_ends_it(settings: Settings, tmp_path: Path) -> None:
    process = LocalWorkerProcess(settings.model_copy(update={"stop_grace_s": 1}))
    process.start()
    try:
        first = await eventually_async(lambda: process.pid, what="the worker to start")
        await eventually_async(lambda: process.ready, what="the worker to say it takes jobs")
        os.kill(first, signal.SIGKILL)
        second = await eventually_async(
            lambda: process.pid, lambda pid: pid not in (None, first), what="a new worker"
        )
        await eventually_async(lambda: process.ready, what="the new worker to say it takes jobs")
        assert process.starts == 2
    finally:
        await process.stop()
    assert process.pid is None and not process.ready
    with pytest.raises(ProcessLookupError):
        os.kill(second, 0)
    assert process.starts == 2, "a stopped worker is not started again"


async def test_a_woken_worker_keeps_running(settings: Settings) -> None:
    process = LocalWorkerProcess(settings.model_copy(update={"stop_grace_s": 1}))
    process.wake()  # nothing to wake yet: no process, nothing sent
    process.start()
    try:
        await eventually_async(lambda: process.ready, what="the worker to say it takes jobs")
        pid = process.pid
        for _ in range(3):
            process.wake()  # SIGUSR1, which would end a process that did not handle it
    finally:
        await process.stop()
    assert pid is not None and process.starts == 1
    assert process.exit_code == 0, "stopped by serve's SIGTERM, cleanly, not ended by the wake signal"


async def test_stopping_before_a_start_is_harmless(settings: Settings) -> None:
    process = LocalWorkerProcess(settings)
    await process.stop()
    assert process.pid is None and process.starts == 0
