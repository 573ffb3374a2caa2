"""Loopback helpers shared by the benchmarks and the tests that start real servers."""

from __future__ import annotations

import os
import random
import socket
import time

import httpx


def _bind(port: int) -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
        return int(sock.getsockname()[1])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now; from HELMBENCH_BENCH_PORTS ("18400-18499")
    when set, so benchmarks sharing a machine keep to their own range."""
    span = os.environ.get("HELMBENCH_BENCH_PORTS", "")
    if span:
        low, high = (int(x) for x in span.split("-"))
        for port in random.sample(range(low, high + 1), high - low + 1):
            try:
                return _bind(port)
            except OSError:
                continue
        raise OSError(f"no free port in HELMBENCH_BENCH_PORTS={span}")
    return _bind(0)


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
