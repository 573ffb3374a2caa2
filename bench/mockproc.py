"""Start bench.mock_target in its own process (so the mock and the runner do not share one core)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from bench.ports import free_port


@contextmanager
def mock_process(latency: float = 0.2, port: int | None = None, **options: float) -> Iterator[str]:
    """Yield the base URL of a mock process (on `port`, else a free one); options are MockConfig fields."""
    port = port or free_port()
    argv = [sys.executable, "-m", "bench.mock_target", "--port", str(port), "--latency", str(latency)]
    for name, value in options.items():
        argv += ["--" + name.replace("_", "-"), str(value)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                if httpx.get(base + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"mock did not start: {proc.stderr.read().decode() if proc.stderr else ''}"
                )
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()
