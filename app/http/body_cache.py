"""Rendered bodies kept for a short while, so most dashboard polls never reach the database."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Annotated

from fastapi import Depends, Request

from app.http.caching import etag_for


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

    def last(self, key: Hashable, max_stale_s: float) -> tuple[bytes, str] | None:
        """(body, etag) of the last version kept, if it went stale less than max_stale_s ago; else None."""
        hit = self._entries.get(key)
        if hit is None or time.monotonic() - hit[2] >= max_stale_s:
            return None
        return hit[3], hit[4]

    def forget(self, mentions: str) -> None:
        """Drop every body kept under a key naming `mentions` (a deleted evaluation's status documents)."""
        with self._lock:
            for key in [k for k in self._entries if isinstance(k, tuple) and mentions in k]:
                del self._entries[key]

    def put(self, key: Hashable, body: bytes, fresh_s: float) -> tuple[bytes, str]:
        """Keep a body just built for fresh_s seconds; its own hash is its stamp."""
        return self.get_or_render(key, etag_for(body), lambda: body, fresh_s)


Built = tuple[bytes, str] | None


class SingleFlight:
    """One rebuild per key at a time, in a thread; while it runs, every caller gets the last body kept.

    Why: a crowd of pollers finding a body stale at once would each run the same queries and queue behind one
    another in the thread pool. With this, one rebuild per freshness window answers them all, and a poller
    waits on the database only when nothing recent is kept (the first poll, or after max_stale_s).
    """

    def __init__(self, cache: BodyCache, max_stale_s: float) -> None:
        self.cache, self.max_stale_s = cache, max_stale_s
        self._building: dict[Hashable, asyncio.Future[Built]] = {}

    async def get(self, key: Hashable, build: Callable[[], Built]) -> Built:
        """The fresh body, else the last one while one rebuild runs, else that rebuild's result."""
        fresh = self.cache.recent(key)
        if fresh is not None:
            return fresh
        building = self._building.get(key)
        if building is None:
            building = self._building[key] = asyncio.ensure_future(asyncio.to_thread(build))
            building.add_done_callback(lambda done: self._settled(key, done))
        last = self.cache.last(key, self.max_stale_s)
        if last is not None:
            return last
        return await asyncio.shield(building)

    def _settled(self, key: Hashable, done: asyncio.Future[Built]) -> None:
        """Forget the rebuild; a failed one is retrieved here (the callers that awaited it got it too)."""
        self._building.pop(key, None)
        if not done.cancelled():
            done.exception()


async def get_body_cache(request: Request) -> BodyCache:
    """Async on purpose: a sync dependency costs a thread-pool round trip on the hottest path."""
    return request.app.state.body_cache


BodyCacheDep = Annotated[BodyCache, Depends(get_body_cache)]
