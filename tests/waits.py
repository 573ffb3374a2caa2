"""Waiting for something a test started to happen: poll until it has, fail with what was last seen.

Tests wait on events (a status, a row, a request received), never on how long something took: on a machine
shared with other work the time moves, the event does not. The timeout only turns a hang into a failure, so
it is generous; it is never the thing asserted.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from app.store.evaluations import TERMINAL

T = TypeVar("T")

TIMEOUT_S = 30.0
EVERY_S = 0.05


def _failure(what: str, timeout: float, last: object) -> AssertionError:
    return AssertionError(f"{what} did not happen within {timeout:g} s; last seen: {last!r}"[:2000])


def eventually(
    read: Callable[[], T],
    until: Callable[[T], object] = bool,
    *,
    what: str = "the condition",
    timeout: float = TIMEOUT_S,
    every: float = EVERY_S,
) -> T:
    """Calls `read` until `until` holds for what it returns (by default: until it is truthy), and returns that."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if until(value):
            return value
        if time.monotonic() >= deadline:
            raise _failure(what, timeout, value)
        time.sleep(every)


async def eventually_async(
    read: Callable[[], T | Awaitable[T]],
    until: Callable[[T], object] = bool,
    *,
    what: str = "the condition",
    timeout: float = TIMEOUT_S,
    every: float = EVERY_S,
) -> T:
    """`eventually` inside an event loop: `read` may be a coroutine function; the loop runs between reads."""
    deadline = time.monotonic() + timeout
    while True:
        value: Any = read()
        if inspect.isawaitable(value):
            value = await value
        if until(value):
            return value
        if time.monotonic() >= deadline:
            raise _failure(what, timeout, value)
        await asyncio.sleep(every)


def settled(
    client: Any,
    evaluation_id: str,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = TIMEOUT_S,
    every: float = EVERY_S,
) -> dict[str, Any]:
    """The evaluation's status document once it has settled, through the API (a TestClient or an httpx.Client)."""
    return eventually(
        lambda: client.get(f"/v1/evaluations/{evaluation_id}", headers=headers).json(),
        lambda body: body.get("status") in TERMINAL,
        what=f"evaluation {evaluation_id} to settle",
        timeout=timeout,
        every=every,
    )
