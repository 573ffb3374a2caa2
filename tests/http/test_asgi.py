"""The raw ASGI shapes our middlewares are written against: a plain coroutine app, driven with a hand-built
scope and the receive/send pair a server gives, is wrapped by them and answers as a server would relay it."""

from __future__ import annotations

from app.http.asgi import Message, Receive, Scope, Send
from app.http.body_limit import BodyLimitMiddleware
from app.http.cors import PublicCORSMiddleware


async def hello(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


async def drive(
    app: object, path: str, headers: list[tuple[bytes, bytes]], body: bytes = b""
) -> list[Message]:
    scope: Scope = {"type": "http", "method": "POST", "path": path, "headers": headers}
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)  # type: ignore[operator]
    return sent


async def test_middlewares_stack_on_a_plain_asgi_app() -> None:
    app = PublicCORSMiddleware(BodyLimitMiddleware(hello, max_bytes=10, timeout_s=5), origins="*")
    sent = await drive(app, "/v1/leaderboard", [(b"origin", b"https://dash.example")], b"small")
    start, body = sent
    assert start["status"] == 200 and (b"access-control-allow-origin", b"*") in start["headers"]
    assert body["body"] == b"hello"


async def test_a_middleware_answers_for_the_app_when_it_refuses() -> None:
    app = BodyLimitMiddleware(hello, max_bytes=3, timeout_s=5)
    sent = await drive(app, "/v1/targets", [(b"content-length", b"20")], b"x" * 20)
    assert sent[0]["status"] == 413 and b"hello" not in b"".join(m.get("body", b"") for m in sent)
