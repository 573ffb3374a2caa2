"""What dashboards poll stays cheap: ETag/If-None-Match → 304 and Cache-Control."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import Request, Response
from fastapi.encoders import jsonable_encoder
from pydantic import BaseModel

# Public data may be a few seconds stale; a browser revalidates with If-None-Match after that.
PUBLIC_CACHE = "public, max-age=5"
# The catalogue changes only with a deploy of new benchmark data.
CATALOGUE_CACHE = "public, max-age=300"
# A team's own evaluation: never shared by caches, always revalidated (cheap: a 304 has no body).
PRIVATE_CACHE = "private, no-cache"


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
