"""Endpoint URL checks at registration (app.net.ssrf, then DNS with a timeout); the client rechecks."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import httpx

from app.net.ssrf import Allowlist, UnsafeURLError, check_url, resolve_checked

__all__ = ["UnsafeURLError", "check_endpoint_url"]


Resolver = Callable[[str, int, Allowlist], Awaitable[list[str]]]


def _resolve_with_timeout(
    host: str, port: int, allowlist: Allowlist, timeout_s: float, resolve: Resolver
) -> None:
    """Resolve in a daemon thread so slow DNS can never hold a request past timeout_s."""
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
    # Timed out or the name does not resolve (yet): the call-time resolver refuses it if it ever
    # resolves to an internal address, so registration is not the only gate.


def check_endpoint_url(
    url: str, allowlist: Allowlist, *, dns_timeout_s: float, resolve: Resolver = resolve_checked
) -> None:
    """Raise UnsafeURLError unless url is an http(s) URL we may call: literal forms, special names and DNS."""
    check_url(url, allowlist)
    parts = urlsplit(url)
    host = httpx.URL(url).raw_host.decode("ascii")  # IDNs resolve as punycode, as in the client
    if allowlist.admits_name(host):
        return
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    _resolve_with_timeout(host, port, allowlist, dns_timeout_s, resolve)
