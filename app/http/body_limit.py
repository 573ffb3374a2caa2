"""Request bodies are read whole, bounded in size and time, before the app sees them: no handler meets a huge
or trickled body. The one exception is an upload that its route streams to storage and bounds itself (a grade
batch: many lines, each no larger than a request body)."""

from __future__ import annotations

import asyncio
import json

from app.http.asgi import ASGIApp, Message, Receive, Scope, Send
from app.http.problem_types import problem_type


class _TooLarge(Exception):
    pass


async def _problem(send: Send, scope: Scope, status: int, title: str, detail: str) -> None:
    """A problem+json answer sent before the app runs; the connection closes: the body is left unread."""
    body = json.dumps(
        {
            "type": problem_type(status),
            "title": title,
            "status": status,
            "detail": detail,
            "instance": scope.get("path", ""),
            "field": "body",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _is_utf8(chunks: list[bytes]) -> bool:
    try:
        b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class BodyLimitMiddleware:
    """413 above max_bytes (announced or counted), 408 past timeout_s, 400 for JSON that is not UTF-8."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        timeout_s: float,
        streamed: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self.app, self.max_bytes, self.timeout_s, self.streamed = app, max_bytes, timeout_s, streamed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope.get("method", ""), scope.get("path", "")) in self.streamed:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"")
        if length.isdigit() and int(length) > self.max_bytes:
            await _problem(
                send,
                scope,
                413,
                "Content too large",
                f"the request body has {int(length)} bytes; the limit is {self.max_bytes}",
            )
            return
        try:
            async with asyncio.timeout(self.timeout_s):
                chunks, disconnected = await self._read(receive)
        except _TooLarge:
            detail = f"the request body exceeds {self.max_bytes} bytes"
            await _problem(send, scope, 413, "Content too large", detail)
            return
        except TimeoutError:
            await _problem(
                send,
                scope,
                408,
                "Request timeout",
                f"the request body did not arrive within {self.timeout_s:g} s",
            )
            return
        if disconnected:
            return
        if b"json" in headers.get(b"content-type", b"").lower() and not _is_utf8(chunks):
            await _problem(send, scope, 400, "Bad request", "the body is not UTF-8, as JSON must be")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()  # later calls wait for a disconnect, as streaming responses expect

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive) -> tuple[list[bytes], bool]:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return chunks, True
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks, False
