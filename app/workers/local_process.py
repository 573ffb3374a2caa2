"""`helmbench serve`'s local worker process: started with the API, started again if it dies, stopped with it.

Why a process and not a thread or a pool: the runner and grading are asyncio code on one loop; in their own
process they get a core of their own and their own GIL, and the API's loop only serves (a poller waited
behind grading before). `local_workers` starts N of these (two by default: one worker is CPU-bound on its core
in a large run); they claim shards side by side and count each target's concurrency together
(app/limits/host_target_gate.py), so a run of one shard still has all of it. The child gets the API's
settings through its environment, so a Settings built in code (a test, a bench) reaches it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time

import structlog

from app.config import Settings
from app.workers.local import READY, STOP_MARGIN_S, WAKE_SIGNAL

RESTART_MAX_WAIT_S = 10.0
STABLE_AFTER_S = 30.0  # a child that lived this long and died starts again at once; a crashing one backs off
log = structlog.get_logger("helmbench.serve")


def child_env(settings: Settings) -> dict[str, str]:
    """The environment that gives the child exactly these settings (HELMBENCH_* inherited are replaced)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELMBENCH_")}
    for name, value in settings.model_dump(mode="json").items():
        if value is not None:
            env[f"HELMBENCH_{name.upper()}"] = value if isinstance(value, str) else json.dumps(value)
    return env


class LocalWorkerProcess:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._proc: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self.starts = 0
        self.ready = False  # the child has started and takes jobs

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.returncode is None else None

    @property
    def exit_code(self) -> int | None:
        """The last child's exit status once it has ended (a signal's is negative); None while it runs."""
        return self._proc.returncode if self._proc is not None else None

    async def _read_ready(self, proc: asyncio.subprocess.Process) -> None:
        """Until the child's stdout closes: READY marks it taking jobs (anything else it prints is dropped)."""
        assert proc.stdout is not None
        async for line in proc.stdout:
            if line.strip() == READY:
                self.ready = True

    def wake(self) -> None:
        """Tell the child jobs were queued, so a run starts at once rather than at its next poll of the table.
        Only once it said READY: before, its handler is not installed and the signal would end it."""
        pid = self.pid
        if self.ready and pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, WAKE_SIGNAL)

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep_running(), name="helmbench-local-worker")

    async def _keep_running(self) -> None:
        failures = 0
        while True:
            started = time.monotonic()
            # Its own session: a Ctrl-C in the terminal reaches serve alone, which stops the child once, in order.
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "app.workers.local",
                env=child_env(self._settings),
                start_new_session=True,
                stdout=asyncio.subprocess.PIPE,  # it says READY there once it takes jobs; its logs go to stderr
            )
            self.starts += 1
            log.info("local worker started", pid=self._proc.pid)
            await self._read_ready(self._proc)
            code = await self._proc.wait()
            self.ready = False
            failures = 0 if time.monotonic() - started > STABLE_AFTER_S else failures + 1
            wait = min(RESTART_MAX_WAIT_S, 0.25 * 2**failures) if failures > 1 else 0.0
            log.warning("local worker exited; starting another", code=code, restart_in_s=wait)
            await asyncio.sleep(wait)

    async def stop(self) -> None:
        """SIGTERM the child (it hands its jobs back) and wait for it; SIGKILL it if it overstays."""
        self.ready = False
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), self._settings.stop_grace_s + STOP_MARGIN_S + 5)
        except TimeoutError:
            log.error("local worker did not stop in time; killed", pid=proc.pid)
            proc.kill()
            await proc.wait()


def wake_all(workers: list[LocalWorkerProcess]) -> None:
    """Jobs were queued: every local worker claims now."""
    for worker in workers:
        worker.wake()
