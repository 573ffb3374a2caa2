"""Dashboards polling one evaluation, in a process of their own: `python -m tests.http.pollers URL KEY ID N`.

They poll (revalidating with the last ETag) until their stdin closes, then print one JSON line: every answer's
status and the slowest answer in seconds. A process of their own, so their work never competes with the
server's event loop for the test process's interpreter lock: a slow callback the server reports is its own.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import httpx

# A kept-alive connection the server closed as the poll went out: read, written or answered with nothing at all.
DROPPED = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)


async def poll_until_closed(url: str, key: str, evaluation_id: str, pollers: int) -> dict[str, object]:
    statuses: list[int] = []
    dropped = 0  # a kept-alive connection the server closed as it was reused: the poll is sent again
    slowest = 0.0
    closed = asyncio.Event()

    async def poll(api: httpx.AsyncClient) -> None:
        nonlocal slowest, dropped
        etag = None
        while not closed.is_set():
            started = time.monotonic()
            revalidate = {"If-None-Match": etag} if etag else None
            try:
                answer = await api.get(f"/v1/evaluations/{evaluation_id}", headers=revalidate)
            except DROPPED:  # on a starved machine a poller can sleep past the server's keep-alive
                dropped += 1
                continue
            slowest = max(slowest, time.monotonic() - started)
            statuses.append(answer.status_code)
            etag = answer.headers.get("etag", etag)
            await asyncio.sleep(0.05)

    limits = httpx.Limits(max_connections=pollers)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=30) as api:
        tasks = [asyncio.ensure_future(poll(api)) for _ in range(pollers)]
        print("polling", flush=True)
        await asyncio.to_thread(sys.stdin.read)  # until the test closes our stdin
        closed.set()
        await asyncio.gather(*tasks)
    return {"statuses": statuses, "dropped": dropped, "slowest_s": slowest}


if __name__ == "__main__":
    url, key, evaluation_id, pollers = sys.argv[1:5]
    print(json.dumps(asyncio.run(poll_until_closed(url, key, evaluation_id, int(pollers)))), flush=True)
