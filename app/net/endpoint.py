"""Endpoint URL checks at registration (app.net.ssrf, then DNS with a timeout); the client rechecks."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import anyio.from_thread
import httpx
from anyio import NoEventLoopError

from app.net.ssrf import Allowlist, UnsafeURLError, check_url, resolve_checked

__all__ = ["UnsafeURLError", "check_endpoint_url", "check_endpoint_url_async"]


Resolver = Callable[[str, int, Allowlist], Awaitable[list[str]]]


async def _resolve_within(
    host: str, port: int, allowlist: Allowlist, timeout_s: float, resolve: Resolver
) -> None:
    """Resolve with the running loop's resolver, giving up after timeout_s.

    Timed out, or the name does not resolve (yet): accepted, since the call-time resolver refuses it if it ever
    resolves to an internal address, so registration is not the only gate. Only a refused address raises.
    """
    try:
        await asyncio.wait_for(resolve(host, port, allowlist), timeout_s)
    except UnsafeURLError:
        raise
    except Exception:  # noqa: BLE001 - see the docstring: the client's resolver is the gate that holds
        return


def _resolve_in_own_loop(
    host: str, port: int, allowlist: Allowlist, timeout_s: float, resolve: Resolver
) -> None:
    """With no event loop to borrow (the CLI, a script): a daemon thread of its own, so slow DNS can never hold
    the caller past timeout_s (a getaddrinfo cannot be interrupted, and a loop's close would wait for it)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            asyncio.run(resolve(host, port, allowlist))
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller below
            outcome.append(exc)

    worker = threading.Thread(target=run, name=f"dns-check-{host}", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if outcome and isinstance(outcome[0], UnsafeURLError):
        raise outcome[0]


def _dns_target(url: str, allowlist: Allowlist) -> tuple[str, int] | None:
    """The (host, port) to resolve once the URL's own form passes; None when the allowlist admits the name."""
    check_url(url, allowlist)
    parts = urlsplit(url)
    host = httpx.URL(url).raw_host.decode("ascii")  # IDNs resolve as punycode, as in the client
    if allowlist.admits_name(host):
        return None
    return host, parts.port or (443 if parts.scheme.lower() == "https" else 80)


async def check_endpoint_url_async(
    url: str, allowlist: Allowlist, *, dns_timeout_s: float, resolve: Resolver = resolve_checked
) -> None:
    """`check_endpoint_url` for async code: DNS on this loop's resolver (loop.getaddrinfo), never blocking it."""
    target = _dns_target(url, allowlist)
    if target is not None:
        await _resolve_within(*target, allowlist, dns_timeout_s, resolve)


def check_endpoint_url(
    url: str, allowlist: Allowlist, *, dns_timeout_s: float, resolve: Resolver = resolve_checked
) -> None:
    """Raise UnsafeURLError unless url is an http(s) URL we may call: literal forms, special names and DNS.

    Services call this from a worker thread of the API's loop: the lookup then runs on that loop's resolver,
    which keeps serving meanwhile. Never call it on a loop's own thread: use `check_endpoint_url_async`.
    """
    target = _dns_target(url, allowlist)
    if target is None:
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("check_endpoint_url would block this event loop; await check_endpoint_url_async")
    try:
        anyio.from_thread.run(_resolve_within, *target, allowlist, dns_timeout_s, resolve)
    except NoEventLoopError:
        _resolve_in_own_loop(*target, allowlist, dns_timeout_s, resolve)
