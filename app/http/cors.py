"""CORS for the public read endpoints, so any dashboard may poll them from a browser; other paths get none."""

from __future__ import annotations

from app.http.asgi import ASGIApp, Message, Receive, Scope, Send

PUBLIC_PATHS = ("/v1/leaderboard", "/v1/benchmark", "/v1/public")


def is_public_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in PUBLIC_PATHS)


class PublicCORSMiddleware:
    """CORS on the public read endpoints only, never with credentials: other paths get no CORS headers."""

    def __init__(self, app: ASGIApp, *, origins: str) -> None:
        self.app = app
        listed = [o.strip().rstrip("/") for o in origins.split(",") if o.strip()]
        self.any_origin = "*" in listed
        self.origins = frozenset(listed)

    def _allow(self, origin: str) -> str | None:
        if self.any_origin:
            return "*"
        return origin if origin in self.origins else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_public_path(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin", b"").decode("latin-1")
        allowed = self._allow(origin) if origin else None
        if allowed is None:
            await self.app(scope, receive, send)
            return
        cors = [(b"access-control-allow-origin", allowed.encode("latin-1"))]
        if allowed != "*":
            cors.append((b"vary", b"Origin"))
        if scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            await send(
                {
                    "type": "http.response.start",
                    "status": 204,
                    "headers": [
                        *cors,
                        (b"access-control-allow-methods", b"GET, HEAD, OPTIONS"),
                        (b"access-control-allow-headers", b"If-None-Match"),
                        (b"access-control-max-age", b"600"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    *cors,
                    (b"access-control-expose-headers", b"ETag"),
                ]
            await send(message)

        await self.app(scope, receive, send_with_cors)
