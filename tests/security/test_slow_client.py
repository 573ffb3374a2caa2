"""Slow clients are cut off by server timeouts, tested against a real `helmbench serve` subprocess: a trickled
body gets 408 (BodyLimitMiddleware), a trickled request head is closed (HeadTimeoutH11Protocol)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from bench.ports import free_port, wait_http
from tests.conftest import write_mini_library
from tests.e2e.conftest import HELMBENCH, running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    root = tmp_path_factory.mktemp("slow")
    port = free_port()
    env = {
        "HELMBENCH_VAR_DIR": str(root / "var"),
        "HELMBENCH_DATA_DIR": str(write_mini_library(root)),
        "HELMBENCH_BODY_TIMEOUT_S": "1",
        "HELMBENCH_HEAD_TIMEOUT_S": "1",
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
    }
    command = [HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(port)]
    with running(command, env, root / "serve.log"):
        wait_http(f"http://127.0.0.1:{port}/healthz", timeout=60)
        yield port, (root / "var" / "admin.key").read_text().strip()


def _trickle(port: int, head: bytes, seconds: float = 30) -> tuple[bytes, float, bool]:
    """Send head, then one byte every quarter second; return what came back, when, and whether the server hung
    up (rather than the client running out its `seconds`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        started = time.monotonic()
        answer = b""
        sock.settimeout(0.25)
        while time.monotonic() - started < seconds:
            try:
                sock.sendall(b" " if b"\r\n\r\n" in head else b"X")
            except OSError:
                return answer, time.monotonic() - started, True
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:  # reset after the server closed: what it sent was read on an earlier pass
                return answer, time.monotonic() - started, True
            if not chunk:
                return answer, time.monotonic() - started, True
            answer += chunk
        return answer, time.monotonic() - started, False


def test_a_trickled_body_gets_408_and_the_connection_closes(server: tuple[int, str]) -> None:
    port, key = server
    head = (
        f"POST /v1/targets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
        "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n"
    ).encode()
    answer, elapsed, hung_up = _trickle(port, head)  # 200 bytes at 4 a second would take 50 s
    assert answer.split(b"\r\n", 1)[0] == b"HTTP/1.1 408 Request Timeout", answer[:300]
    assert b"application/problem+json" in answer and b'"status": 408' in answer
    assert hung_up and elapsed >= 0.9  # the server cut it off, and not before its 1 s body timeout


def test_a_trickled_request_head_is_cut_off(server: tuple[int, str]) -> None:
    port, _ = server
    answer, elapsed, hung_up = _trickle(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # never ends
    assert answer == b""
    assert hung_up and elapsed >= 0.9  # the server cut it off, and not before its 1 s head timeout


def test_a_prompt_client_is_served_on_the_same_server(server: tuple[int, str]) -> None:
    port, _ = server
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 OK")
