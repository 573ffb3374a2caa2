"""A client trickling its body is cut off by the server's timeout: a real `helmbench serve` subprocess."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from tests.conftest import write_mini_library
from tests.e2e.conftest import HELMBENCH, free_port, running, wait_http


def test_a_trickled_body_gets_408_and_the_connection_closes(tmp_path: Path) -> None:
    port = free_port()
    data = write_mini_library(tmp_path)
    env = {
        "HELMBENCH_VAR_DIR": str(tmp_path / "var"),
        "HELMBENCH_DATA_DIR": str(data),
        "HELMBENCH_BODY_TIMEOUT_S": "1",
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
    }
    command = [HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(port)]
    with running(command, env, tmp_path / "serve.log"):
        wait_http(f"http://127.0.0.1:{port}/healthz")
        key = (tmp_path / "var" / "admin.key").read_text().strip()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                (
                    f"POST /v1/targets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
                    "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n"
                ).encode()
            )
            started = time.monotonic()
            answer = b""
            sock.settimeout(0.25)
            while time.monotonic() - started < 8:
                try:
                    sock.sendall(b" ")  # one byte every quarter second: would take 50 s to finish
                except OSError:
                    break
                try:
                    chunk = sock.recv(4096)
                except TimeoutError:
                    continue
                except OSError:  # reset after the server closed: what it sent was read on an earlier pass
                    break
                if not chunk:
                    break
                answer += chunk
            elapsed = time.monotonic() - started
    head = answer.split(b"\r\n", 1)[0]
    assert head == b"HTTP/1.1 408 Request Timeout", answer[:300]
    assert b"application/problem+json" in answer and b'"status": 408' in answer
    assert 0.9 <= elapsed < 5
