"""The loops a process runs beside its requests or jobs, started and stopped in one place per process kind.

An API process and an arq worker each call `start_background` once and `stop_background` on the way out; which
loops a kind runs is the table below, so where a loop runs is read in one place. Every loop that touches shared
work claims it (the reconciler and the retention sweep hold a database lease, the scheduler claims each due
schedule), so running it in every process of a kind is safe: the extra copies only stand by.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from app.queue.base import JobQueue
from app.runner.reconcile import start_reconciler
from app.runner.runtime import Runtime
from app.services.board_cache import BoardCache
from app.services.retention import start_retention
from app.services.schedules import start_scheduler
from app.webhooks.delivery import start_delivery

Kind = Literal["api", "worker"]
Loop = Literal["webhooks", "reconciler", "scheduler", "retention", "boards"]

# Webhooks are delivered, and the board rendered again, where requests are served: a worker answers no request.
LOOPS: dict[Kind, tuple[Loop, ...]] = {
    "api": ("webhooks", "reconciler", "scheduler", "retention", "boards"),
    "worker": ("reconciler", "scheduler", "retention"),
}


@dataclass
class Background:
    """What a process started: its loops (stopped in reverse order), its warm-up, and the board refresher."""

    kind: Kind
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    warming: asyncio.Task[None] | None = None
    boards: BoardCache | None = None


def start_background(
    deps: Runtime,
    queue: JobQueue,
    *,
    kind: Kind,
    grace_s: float,
    warm: Callable[[], object] | None = None,
    boards: BoardCache | None = None,
) -> Background:
    """Start the loops this kind of process runs; grace_s is how long a shard must look lost before the
    reconciler queues it again, warm a slow first-use cost paid in a thread, boards the API's board cache."""
    running = Background(kind=kind)
    for loop in LOOPS[kind]:
        if loop == "webhooks":
            running.tasks.append(start_delivery(deps))
        elif loop == "reconciler":
            running.tasks.append(start_reconciler(deps, queue, grace_s=grace_s))
        elif loop == "scheduler":
            running.tasks.append(start_scheduler(deps, queue))
        elif loop == "retention":
            running.tasks.append(start_retention(deps))
        elif loop == "boards" and boards is not None:
            boards.start(deps.engine, deps.library)
            running.boards = boards
    if warm is not None:
        running.warming = asyncio.create_task(asyncio.to_thread(warm), name="helmbench-warm-up")
    return running


async def stop_background(running: Background) -> None:
    """Let the warm-up finish, cancel the loops (last started first), then stop the board refresher, letting a
    render in progress finish in a thread so the event loop is not held."""
    if running.warming is not None:
        await running.warming
    for task in reversed(running.tasks):
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    if running.boards is not None:
        await asyncio.to_thread(running.boards.stop)
