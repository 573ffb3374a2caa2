"""A pass that one process of the whole deployment makes at a time, every period: the holder of a named lease in
the database makes it; the others wait their turn and take over if the holder goes quiet."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from app.runner.runtime import Runtime
from app.store.leases import hold_lease, release_lease
from app.store.retry import db_call


def holder_id() -> str:
    """Who holds the lease, as an operator would look for it: host, process, and a nonce for this start."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


async def leased_forever(
    deps: Runtime,
    name: str,
    *,
    period: float,
    ttl: float,
    one_pass: Callable[[], Awaitable[float]],
    log: Any,
    failed: str,
) -> None:
    """Every `period`, if this process holds the lease `name`, awaits `one_pass` (it answers how long until the
    next); survives any one failure, logged to `log` as `failed`. Ends, giving the lease back, when the process
    starts stopping (a stopping process must not start work it will not finish)."""
    holder = holder_id()
    try:
        while not deps.stopping.is_set():
            wait = period
            try:
                if await db_call(0, hold_lease, engine=deps.engine, name=name, holder=holder, ttl_s=ttl):
                    wait = await one_pass()
            except Exception as exc:
                # An outage of the database or Redis: the next pass, a period on, tries again.
                log.warning(failed, error=f"{type(exc).__name__}: {exc}"[:300])
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(deps.stopping.wait(), wait)
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(release_lease, engine=deps.engine, name=name, holder=holder)
