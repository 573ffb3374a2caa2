"""A request head that trickles in (slowloris) is cut off by the server; a prompt request is served, and a body
that lags behind its head is left to the body guard, not cut off here. Real uvicorn, real sockets."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from app.http.head_timeout import HeadTimeoutH11Protocol, head_timeout_protocol
from bench.ports import free_port
from tests.waits import eventually

HEAD_TIMEOUT_S = 1.0
HANG_S = 30  # only turns a hang into a failure


async def echo(request: Request) -> PlainTextResponse:
    return PlainTextResponse(f"got {len(await request.body())}")


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    port = free_port()
    config = uvicorn.Config(
        Starlette(routes=[Route("/", echo, methods=["GET", "POST"])]),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        http=head_timeout_protocol(HEAD_TIMEOUT_S),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    eventually(lambda: server.started or not thread.is_alive(), what="the server to start", every=0.02)
    assert server.started
    yield port
    server.should_exit = True
    thread.join(timeout=HANG_S)


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it hangs up (the event waited on)."""
    sock.settimeout(HANG_S)
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_the_protocol_class_carries_its_timeout() -> None:
    protocol = head_timeout_protocol(2.5)
    assert issubclass(protocol, HeadTimeoutH11Protocol) and protocol.head_timeout_s == 2.5
    assert HeadTimeoutH11Protocol.head_timeout_s == 10.0, "the default is left as it was"


def test_a_head_that_never_ends_is_closed_without_an_answer(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        started = time.monotonic()
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        assert read_until_closed(sock) == b""
        assert time.monotonic() - started >= HEAD_TIMEOUT_S * 0.9, "not cut off before its timeout"


def test_a_prompt_request_is_served_and_an_idle_keep_alive_is_closed_after(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = read_until_closed(sock)  # the timer runs again after the response: an idle connection goes
    assert answer.startswith(b"HTTP/1.1 200 OK") and answer.endswith(b"got 0")


def test_a_body_arriving_after_the_head_timeout_is_still_served(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        time.sleep(HEAD_TIMEOUT_S * 2)  # past the head timeout: the head is whole, so the timer leaves it be
        sock.sendall(b"hello")
        answer = read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 200 OK") and answer.endswith(b"got 5")
