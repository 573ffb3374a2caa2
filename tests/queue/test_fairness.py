"""Fair shares on the embedded default: a small run started behind a big one runs at once, on the spare place for
a run that holds none (app/runner/shard_places.py), instead of after the big run's shards (app/queue/fair.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.routers.conftest import careful_bot, make_target
from tests.waits import eventually, settled

BIG_URL = "http://127.0.0.1:9911/v1"
SMALL_URL = "http://127.0.0.1:9912/v1"


class HeldCalls:
    """The big target's calls wait until the test lets them through, one at a time."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.gate: asyncio.Semaphore | None = None
        self.answered = threading.Semaphore(0)
        self.let_through = 0

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.gate is None:  # made on the app's loop, which the test's thread only signals
            self.loop, self.gate = asyncio.get_running_loop(), asyncio.Semaphore(0)
        await self.gate.acquire()
        self.answered.release()
        return careful_bot(request)

    def let_one_through(self) -> None:
        assert self.loop is not None and self.gate is not None
        self.loop.call_soon_threadsafe(self.gate.release)
        assert self.answered.acquire(timeout=30), "a let-through call was not answered"
        self.let_through += 1


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """Two shard places, four items a shard: the big run fills both places with shards of its own."""
    fair = settings.model_copy(update={"shard_size": 4, "worker_max_jobs": 2})
    with TestClient(create_app(fair)) as test_client:
        key = (fair.var_dir / "admin.key").read_text().strip()
        test_client.headers["Authorization"] = f"Bearer {key}"
        yield test_client


def start(client: TestClient, target_id: str, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/evaluations", json={"target_id": target_id, **body})
    assert response.status_code == 202, response.text
    return response.json()


def test_a_small_run_started_behind_a_big_one_finishes_before_the_big_one_makes_another_call(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    held, small_called = HeldCalls(), threading.Event()

    def small_bot(request: httpx.Request) -> httpx.Response:
        small_called.set()
        return careful_bot(request)

    mock_target.post(f"{BIG_URL}/chat/completions").mock(side_effect=held)
    mock_target.post(f"{SMALL_URL}/chat/completions").mock(side_effect=small_bot)
    big_target = make_target(client, name="big", base_url=BIG_URL, max_concurrency=1)
    small_target = make_target(client, name="small", base_url=SMALL_URL)

    big = start(client, big_target, suite="full", repeats=8)
    total = client.get(f"/v1/evaluations/{big['id']}").json()["progress"]["total"]
    assert total >= 40, "a big run: ten shards or more"
    eventually(lambda: held.gate is not None, what="the big run's first call")
    eventually(
        lambda: client.get(f"/v1/evaluations/{big['id']}").json()["status"] == "running", what="big runs"
    )
    small = start(client, small_target, suite="quick")

    # The big run's shards hold both places and every one of its calls is held: the small run takes the spare
    # place for a run that holds none, so it neither waits for a big shard to end nor for a big call.
    assert small_called.wait(timeout=60), (
        "the small run never called its target while the big run held its places"
    )
    done = settled(client, small["id"])
    big_now = client.get(f"/v1/evaluations/{big['id']}").json()

    assert done["status"] == "succeeded" and done["progress"]["done"] == done["progress"]["total"]
    assert big_now["status"] == "running" and held.let_through == 0
    assert big_now["progress"]["done"] == 0, big_now["progress"]
    assert client.post(f"/v1/evaluations/{big['id']}/cancel").json()["status"] == "cancelled"
