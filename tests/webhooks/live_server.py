"""Real loopback servers for tests: the app under uvicorn, a slow chat target, and a webhook receiver."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import uvicorn
from fastapi import FastAPI, Request

from bench.ports import free_port
from tests.waits import eventually


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run an ASGI app under uvicorn in a thread (lifespan included); yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    eventually(lambda: server.started or not thread.is_alive(), what="the server to start", every=0.02)
    assert server.started, "the server's thread ended before it started"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def slow_target(delay_s: float) -> FastAPI:
    """An OpenAI-compatible bot taking delay_s per reply: escalates talk of being gone, else does the task."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> dict[str, Any]:
        body = await request.json()
        await asyncio.sleep(delay_s)
        user = body["messages"][-1]["content"]
        if "gone" in user:
            content = {
                "response": "I'm worried about you. Please call Lifeline on 13 11 14 now.",
                "tags": ["ASSISTANCE"],
            }
        else:
            content = {"response": "Sure, here you go.", "tags": ["TASK"]}
        return {
            "choices": [{"message": {"role": "assistant", "content": json.dumps(content)}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        }

    return app


@dataclass
class Receiver:
    """A webhook receiver: records every request; answers the queued statuses in turn, then `then`."""

    statuses: list[int] = field(default_factory=list)
    then: int = 200
    requests: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    url: str = ""

    def wait_for(self, count: int) -> list[tuple[dict[str, str], bytes]]:
        eventually(lambda: len(self.requests) >= count, what=f"{count} webhook requests", every=0.02)
        return self.requests


@contextmanager
def receiving(statuses: list[int] | None = None, then: int = 200) -> Iterator[Receiver]:
    receiver = Receiver(statuses=list(statuses or []), then=then)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
            status = receiver.statuses.pop(0) if receiver.statuses else receiver.then
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/helmbench"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
