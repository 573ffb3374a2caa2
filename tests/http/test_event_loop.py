"""The API's event loop is never held: every main operation does its database and service work off the loop, so
the dashboards polling an evaluation keep being answered while others start, grade, read and delete.

The app runs under uvicorn on a loop of its own in asyncio's debug mode, which logs every callback that runs
longer than `slow_callback_duration` ("Executing <Task 'POST /v1/evaluations' …> took 0.031 seconds"); each
request's task is named for its route, so the warning says which operation held the loop.

What holds the loop does so every time: a render, a query or a wait on the loop thread. A machine shared with
other work also stretches a callback now and then (the thread is descheduled mid-callback), once, at random.
So each operation runs ROUNDS times after a first, unwatched round (which pays one-off costs: imports, compiled
patterns, the first connection), and an operation fails when it held the loop in every round.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
import uvicorn
from fastapi import FastAPI

from app.main import create_app
from app.services import catalogue as catalogue_service
from bench.ports import free_port
from tests.real_library import real_library_settings
from tests.routers.conftest import TARGET_URL, careful_bot
from tests.routers.test_grade import CRISIS
from tests.waits import eventually

SLOW_S = 0.02  # a callback holding the loop longer than this delays every request waiting on it
POLLERS = 50
ROUNDS = 4
_TASK_NAME = re.compile(r"name='([^']*)'")


class SlowCallbacks(logging.Handler):
    """asyncio's own report of each callback that ran past the loop's slow_callback_duration, while watching:
    the name of the task that ran it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []
        self.watching = False

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if self.watching and message.startswith("Executing ") and " took " in message:
            named = _TASK_NAME.search(message)
            self.seen.append(named.group(1) if named else message)


def named_requests(app: Any) -> Any:
    """The app, each HTTP request's task named "METHOD /path" (ids as {id}) so a slow callback names its route."""

    async def named(scope: dict[str, Any], receive: Any, send: Any) -> None:
        task = asyncio.current_task()
        if scope["type"] == "http" and task is not None:
            path = re.sub(r"/(ev|tgt)_[0-9a-f]+", "/{id}", scope["path"])
            task.set_name(f"{scope['method']} {path}")
        await app(scope, receive, send)

    return named


@contextmanager
def watched_server(app: Any) -> Iterator[tuple[str, SlowCallbacks]]:
    """An ASGI app under uvicorn in a thread, on a debug-mode loop that reports callbacks slower than SLOW_S."""
    slow = SlowCallbacks()
    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addHandler(slow)
    loop = asyncio.new_event_loop()
    loop.set_debug(True)
    loop.slow_callback_duration = SLOW_S
    port = free_port()
    config = uvicorn.Config(
        named_requests(app), host="127.0.0.1", port=port, log_level="warning", loop="none"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),), daemon=True)
    thread.start()
    try:
        eventually(lambda: server.started or not thread.is_alive(), what="the server to start", every=0.02)
        assert server.started, "the server's thread ended before it started"
        yield f"http://127.0.0.1:{port}", slow
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        asyncio_log.removeHandler(slow)
        if not thread.is_alive():
            loop.close()


@contextmanager
def pollers(url: str, key: str, evaluation_id: str) -> Iterator[dict[str, Any]]:
    """POLLERS dashboards in a process of their own (tests/http/pollers.py); their answers once they stop."""
    command = [sys.executable, "-m", "tests.http.pollers", url, key, evaluation_id, str(POLLERS)]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdin and process.stdout
    assert process.stdout.readline().strip() == "polling"
    seen: dict[str, Any] = {}
    try:
        yield seen
    finally:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, f"the pollers failed:\n{err}"
        seen.update(json.loads(out))


@contextmanager
def opened_at_the_end(gate: threading.Event) -> Iterator[None]:
    try:
        yield
    finally:
        gate.set()


def held_until(gate: threading.Event) -> Callable[[httpx.Request], Awaitable[httpx.Response]]:
    """The careful bot answering only once the gate opens: the evaluations stay running while the test works."""

    async def answer(request: httpx.Request) -> httpx.Response:
        while not gate.is_set():
            await asyncio.sleep(0.01)
        return careful_bot(request)

    return answer


async def main_operations(api: httpx.AsyncClient, target_id: str) -> dict[str, int]:
    """Start, cancel and delete evaluations, grade a reply, list, read the board and catalogue: each status."""
    start = {"target_id": target_id}
    cancelled, deleted = [await api.post("/v1/evaluations", json=start) for _ in range(2)]
    answers = {
        "POST /v1/evaluations": cancelled,
        "POST /v1/evaluations/{id}/cancel": await api.post(
            f"/v1/evaluations/{cancelled.json()['id']}/cancel"
        ),
        "DELETE /v1/evaluations/{id}": await api.delete(f"/v1/evaluations/{deleted.json()['id']}"),
        "POST /v1/grade": await api.post("/v1/grade", json={**CRISIS, "reply": "Are you safe right now?"}),
        "GET /v1/evaluations": await api.get("/v1/evaluations"),
        "GET /v1/leaderboard": await api.get("/v1/leaderboard"),
        "GET /v1/benchmark": await api.get("/v1/benchmark"),
    }
    return {name: answer.status_code for name, answer in answers.items()}


# One call in flight per evaluation: the held calls stay few, whatever the suite's size.
TARGET = {"name": "careful", "base_url": TARGET_URL, "model": "m", "max_concurrency": 1}
EXPECTED = {
    "POST /v1/evaluations": 202,
    "POST /v1/evaluations/{id}/cancel": 200,
    "DELETE /v1/evaluations/{id}": 204,
    "POST /v1/grade": 200,
    "GET /v1/evaluations": 200,
    "GET /v1/leaderboard": 200,
    "GET /v1/benchmark": 200,
}


async def test_main_operations_never_hold_the_loop_while_pollers_are_answered(
    tmp_path: Path, mock_target: respx.MockRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shipped library, so each operation does its real work (a plan over the whole suite, the catalogue); room
    # for every round's evaluations, and for one key's dashboards polling far past an ordinary key's rate.
    roomy = {"max_active_evaluations": 2 * (ROUNDS + 2), "rate_per_minute": 10**7, "rate_burst": 10**5}
    settings = real_library_settings(tmp_path / "var", **roomy)
    gate = threading.Event()
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=held_until(gate))
    held_in: Counter[str] = Counter()  # operation -> rounds in which it held the loop
    app = create_app(settings)
    with watched_server(app) as (url, slow), opened_at_the_end(gate):
        mock_target.route(url__startswith=url).pass_through()
        key = (settings.var_dir / "admin.key").read_text().strip()
        async with httpx.AsyncClient(
            base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30
        ) as api:
            target = await api.post(
                "/v1/targets", json={"name": "careful", "base_url": TARGET_URL, "model": "m"}
            )
            assert target.status_code == 201, target.text
            target_id = target.json()["id"]
            assert await main_operations(api, target_id) == EXPECTED
            polled = (await api.post("/v1/evaluations", json={"target_id": target_id})).json()["id"]
            with pollers(url, key, polled) as polls:
                slow.watching = True
                for _ in range(ROUNDS):
                    # as a new library version does: each round renders the catalogue again, off the loop
                    monkeypatch.setattr(catalogue_service, "_BODIES", {})
                    assert await main_operations(api, target_id) == EXPECTED
                    this_round, slow.seen = slow.seen, []
                    held_in.update(set(this_round) & set(EXPECTED))
                slow.watching = False

    always = sorted(name for name, rounds in held_in.items() if rounds == ROUNDS)
    assert always == [], (
        f"operations that held the event loop over {SLOW_S * 1000:g} ms in every round: {always}"
    )
    assert len(polls["statuses"]) >= POLLERS and set(polls["statuses"]) <= {200, 304}
    assert polls["dropped"] <= len(polls["statuses"]) // 10, polls["dropped"]  # a rare reset, not a refusal


def test_a_route_that_holds_the_loop_is_named() -> None:
    """The watch itself: a route that sleeps on the loop thread is reported, under its own name."""
    app = FastAPI()

    @app.get("/held")
    async def held() -> dict[str, str]:
        time.sleep(SLOW_S * 5)  # what a blocking call in an async route does to the loop
        return {}

    @app.get("/waits")
    async def waits() -> dict[str, str]:
        await asyncio.sleep(SLOW_S * 5)  # waiting without holding the loop
        return {}

    with watched_server(app) as (url, slow):
        slow.watching = True
        assert httpx.get(f"{url}/waits").status_code == 200
        assert httpx.get(f"{url}/held").status_code == 200
        # reported when the callback ends, which may be just after the answer reached us
        eventually(lambda: "GET /held" in slow.seen, what="the held route reported", every=0.01)
