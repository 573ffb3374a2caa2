"""Rendered bodies kept between polls: fresh ones answered from memory, a stamp change or the TTL renders again,
and a crowd finding a body stale gets the last one while a single rebuild runs."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from app.http.body_cache import BodyCache, SingleFlight
from app.http.caching import etag_for
from tests.waits import eventually_async


def test_body_cache_renders_again_on_a_new_stamp_or_after_its_ttl() -> None:
    renders: list[int] = []

    def render() -> bytes:
        renders.append(1)
        return f"body {len(renders)}".encode()

    cache = BodyCache(max_entries=2, ttl_s=60)
    assert cache.recent("k") is None
    first = cache.get_or_render("k", 1, render, fresh_s=60)
    assert cache.get_or_render("k", 1, render) == first and len(renders) == 1
    assert cache.recent("k") is None, "the last check asked for no freshness"
    cache.get_or_render("k", 1, render, fresh_s=60)
    assert cache.recent("k") == first
    assert cache.get_or_render("k", 2, render)[0] == b"body 2"
    expired = BodyCache(ttl_s=0)
    expired.get_or_render("k", 1, render)
    expired.get_or_render("k", 1, render)
    assert len(renders) == 4
    for key in ("a", "b", "c"):
        cache.get_or_render(key, 1, render)
    assert len(cache._entries) == 2  # bounded: a query parameter cannot grow it without limit
    assert cache.put("p", b"x", fresh_s=60) == cache.recent("p")


async def test_a_crowd_of_pollers_gets_the_last_body_while_one_rebuild_runs() -> None:
    cache = BodyCache()
    documents = SingleFlight(cache, max_stale_s=60)
    cache.put("status", b"running 10", fresh_s=0)  # kept, and already stale
    release = threading.Event()
    builds: list[int] = []

    def slow_rebuild() -> tuple[bytes, str]:
        builds.append(1)
        release.wait(30)  # the database is slow: nobody above may wait for it
        return cache.put("status", b"running 20", fresh_s=60)

    answers = await asyncio.gather(*(documents.get("status", slow_rebuild) for _ in range(100)))
    assert {body for body, _ in answers} == {b"running 10"}
    assert len(builds) == 1, "one rebuild however many pollers"
    release.set()
    newer = await eventually_async(
        lambda: documents.get("status", slow_rebuild), until=lambda found: found[0] == b"running 20"
    )
    assert newer == cache.recent("status") and len(builds) == 1


async def test_pollers_with_nothing_recent_wait_for_one_shared_rebuild() -> None:
    cache = BodyCache()
    documents = SingleFlight(cache, max_stale_s=0.2)
    builds: list[int] = []

    def rebuild() -> tuple[bytes, str] | None:
        builds.append(1)
        time.sleep(0.05)  # every caller below arrives while this one runs
        return None  # no such evaluation: nothing is kept, each caller gets the answer

    assert await asyncio.gather(*(documents.get("missing", rebuild) for _ in range(20))) == [None] * 20
    assert len(builds) == 1
    cache.put("old", b"long stale", fresh_s=0)
    await asyncio.sleep(0.3)  # stale for longer than max_stale_s: a poller waits for the rebuild instead
    assert await documents.get("old", lambda: cache.put("old", b"new", fresh_s=60)) == cache.recent("old")


async def test_a_failed_rebuild_reaches_its_waiters_and_the_next_poll_builds_again() -> None:
    documents = SingleFlight(BodyCache(), max_stale_s=60)
    attempts: list[int] = []

    def flaky() -> tuple[bytes, str]:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("database restarting")
        return documents.cache.put("board", b"entries", fresh_s=60)

    with pytest.raises(ConnectionError):
        await documents.get("board", flaky)
    assert await documents.get("board", flaky) == (b"entries", etag_for(b"entries"))
    assert len(attempts) == 2, "the failure was not kept as the answer"
