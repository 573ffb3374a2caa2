"""A Redis server of our own on a free port, that can be restarted empty: a restart without persistence, or a
failover to an empty replica, without touching the machine's shared Redis."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from bench.ports import free_port


class OwnRedis:
    """`redis-server` without persistence on 127.0.0.1:`port`; `restart_empty()` loses every key."""

    def __init__(self, workdir: Path | None = None) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed")
        self.port = free_port()
        self._dir = Path(workdir or tempfile.mkdtemp(prefix="helmbench-redis-"))
        self._dir.mkdir(parents=True, exist_ok=True)
        self._proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        self._proc = subprocess.Popen(
            [*args, "--dir", str(self._dir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs (its CPU is part of what a scale-out run costs)."""
        return self._proc.pid if self._proc is not None else None

    def stop(self) -> None:
        """SIGKILL: connections drop at once and nothing is saved."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)

    def restart_empty(self, down_s: float = 0.0) -> None:
        """Kill it, stay down `down_s`, and start it again with no data."""
        self.stop()
        time.sleep(down_s)
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> OwnRedis:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
