"""Loopback helpers shared by the benchmarks and the tests that start real servers."""

from __future__ import annotations

import socket
import time

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, timeout: float = 120) -> None:
    """Wait until url answers below 500; a loaded 2-core machine can take a while to import and start."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not come up in {timeout}s")
