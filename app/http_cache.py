"""What dashboards poll stays cheap: ETag/If-None-Match → 304, Cache-Control, cached bodies, public CORS."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, MutableMapping
from typing import Annotated, Any

from fastapi import Depends, Request, Response
from fastapi.encoders import jsonable_encoder
from pydantic import BaseModel

# Public data may be a few seconds stale; a browser revalidates with If-None-Match after that.
PUBLIC_CACHE = "public, max-age=5"
# The catalogue changes only with a deploy of new benchmark data.
CATALOGUE_CACHE = "public, max-age=300"
# A team's own evaluation: never shared by caches, always revalidated (cheap: a 304 has no body).
PRIVATE_CACHE = "private, no-cache"

PUBLIC_PATHS = ("/v1/leaderboard", "/v1/benchmark", "/v1/public")


def json_bytes(value: BaseModel | dict[str, Any]) -> bytes:
    """One serialisation for bodies that are hashed for their ETag."""
    if isinstance(value, BaseModel):
        return value.model_dump_json().encode()
    return json.dumps(jsonable_encoder(value), separators=(",", ":")).encode()


def etag_for(body: bytes) -> str:
    """A strong validator: the same bytes always get the same tag, on every API replica."""
    return '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 weak comparison, as If-None-Match requires."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    bare = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == bare for tag in if_none_match.split(","))


def conditional_body(
    request: Request, body: bytes, *, media_type: str, cache_control: str, etag: str | None = None
) -> Response:
    """The body with its ETag and Cache-Control, or a bodiless 304 when the client already has it."""
    headers = {"ETag": etag or etag_for(body), "Cache-Control": cache_control}
    if etag_matches(request.headers.get("if-none-match"), headers["ETag"]):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def conditional_json(
    request: Request, body: bytes, *, cache_control: str, etag: str | None = None
) -> Response:
    return conditional_body(
        request, body, media_type="application/json", cache_control=cache_control, etag=etag
    )


class BodyCache:
    """Rendered bodies kept for a short while, so most polls are answered without touching the database."""

    def __init__(self, max_entries: int = 1024, ttl_s: float = 30.0) -> None:
        # key -> (stamp, rendered at, answer from memory until, body, etag)
        self._entries: OrderedDict[Hashable, tuple[Hashable, float, float, bytes, str]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_entries, self.ttl_s = max_entries, ttl_s

    def recent(self, key: Hashable) -> tuple[bytes, str] | None:
        """(body, etag) while it is fresh: answered from memory, no query at all."""
        hit = self._entries.get(key)
        if hit is None or time.monotonic() >= hit[2]:
            return None
        return hit[3], hit[4]

    def current(self, key: Hashable, stamp: Hashable, fresh_s: float = 0.0) -> tuple[bytes, str] | None:
        """(body, etag) if kept for this stamp within ttl_s, then fresh for fresh_s; else None."""
        now = time.monotonic()
        with self._lock:
            hit = self._entries.get(key)
            if hit is None or hit[0] != stamp or now - hit[1] >= self.ttl_s:
                return None
            self._entries[key] = (stamp, hit[1], now + fresh_s, hit[3], hit[4])
            return hit[3], hit[4]

    def get_or_render(
        self, key: Hashable, stamp: Hashable, render: Callable[[], bytes], fresh_s: float = 0.0
    ) -> tuple[bytes, str]:
        """(body, etag): rendered again only when the stamp changed or after ttl_s; then fresh for fresh_s."""
        hit = self.current(key, stamp, fresh_s)
        if hit is not None:
            return hit
        now = time.monotonic()
        body = render()
        etag = etag_for(body)
        with self._lock:
            self._entries[key] = (stamp, now, now + fresh_s, body, etag)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return body, etag

    def put(self, key: Hashable, body: bytes, fresh_s: float) -> tuple[bytes, str]:
        """Keep a body just built for fresh_s seconds; its own hash is its stamp."""
        return self.get_or_render(key, etag_for(body), lambda: body, fresh_s)


async def get_body_cache(request: Request) -> BodyCache:
    """Async on purpose: a sync dependency costs a thread-pool round trip on the hottest path."""
    return request.app.state.body_cache


BodyCacheDep = Annotated[BodyCache, Depends(get_body_cache)]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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
