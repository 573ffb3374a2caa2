"""Helpers to run the real commands as subprocesses, the way `make run` and production start them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from app.store.evaluations import TERMINAL

HELMBENCH = str(Path(sys.executable).with_name("helmbench"))


@contextmanager
def running(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Start a command, yield it, and always stop it (SIGTERM, then SIGKILL)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            yield proc
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


def poll_until_done(api: httpx.Client, evaluation_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        body = api.get(f"/v1/evaluations/{evaluation_id}").json()
        if body["status"] in TERMINAL:
            return body
        time.sleep(0.25)
    raise AssertionError(f"evaluation not finished in {timeout}s: {body}")
