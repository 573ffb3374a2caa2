"""Database calls that outlive a dropped connection: bounded, jittered retries of transient faults.

Why here and not at each caller: every read and write on the run path (items, progress, status, leases, the
outbox) goes through a short function of app/store run in a thread; wrapping that call once gives all of them the
same policy. Only faults that a new connection can cure are retried (a refused or reset connection, a server
restarting, SQLite busy, a pool with no free connection); a constraint violation or a bug fails at once. Every
function retried here is safe to run twice: inserts ignore written keys and status changes are guarded updates.
After `budget_s` the last error is raised, so the caller fails loudly instead of waiting forever.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import structlog
from sqlalchemy import exc as sa_exc
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_delay,
    wait_random_exponential,
)

T = TypeVar("T")
log = structlog.get_logger("helmbench.store")

FIRST_WAIT_S = 0.2
LONGEST_WAIT_S = 3.0


def is_transient(exc: BaseException) -> bool:
    """True for faults that a later attempt on a fresh connection may not meet (outage, restart, busy)."""
    if isinstance(exc, sa_exc.DBAPIError):
        return exc.connection_invalidated or isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError)
    return isinstance(exc, sa_exc.TimeoutError | sa_exc.DisconnectionError)


def describe(exc: BaseException | None) -> str:
    """The first line of a database error, for logs and problem details (never the statement or its values)."""
    if exc is None:
        return ""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()
    return f"{type(orig).__name__}: {text[0] if text else ''}"[:300]


def _logger(name: str) -> Callable[[RetryCallState], None]:
    def log_retry(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "database call failed; retrying", call=name, attempt=state.attempt_number, error=describe(exc)
        )

    return log_retry


async def db_call(budget_s: float, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run the blocking `fn(*args, **kwargs)` in a thread, retrying transient faults for up to `budget_s`.

    The waits happen on the event loop, not in the thread, so an outage never ties up the thread pool.
    """
    name = getattr(fn, "__name__", None) or type(fn).__name__  # not repr(fn): its owner may hold the library
    retrying = AsyncRetrying(
        retry=retry_if_exception(is_transient),
        wait=wait_random_exponential(multiplier=FIRST_WAIT_S, max=LONGEST_WAIT_S),
        stop=stop_after_delay(budget_s),
        before_sleep=_logger(name),
        reraise=True,
    )
    async for attempt in retrying:
        with attempt:
            return await _in_thread(fn, *args, **kwargs)
    raise AssertionError("unreachable: tenacity reraises the last error")  # pragma: no cover


async def _in_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn` in a thread; a cancelled caller still waits for the thread to finish, so a stopping process never
    disposes its engine under a query that is still running (that connection would be left open, unowned)."""
    work = asyncio.ensure_future(asyncio.to_thread(fn, *args, **kwargs))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        await asyncio.wait([work])
        if not work.cancelled():
            work.exception()  # retrieved: the caller was cancelled, its result or error is no one's
        raise
