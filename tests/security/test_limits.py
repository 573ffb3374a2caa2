"""Limits a user notices: key rate (429, Retry-After), matrix size (422 naming repeats), active runs."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.security.limits import RateLimiter
from tests.routers.conftest import TARGET_URL, careful_bot
from tests.security.conftest import make_team


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_allows_a_burst_then_refills_at_the_rate() -> None:
    clock = FakeClock()
    limiter = RateLimiter(clock=clock)
    assert [limiter.take("k", per_minute=60, burst=3) for _ in range(3)] == [None, None, None]
    wait = limiter.take("k", per_minute=60, burst=3)
    assert wait == pytest.approx(1.0)
    assert limiter.take("other", per_minute=60, burst=3) is None  # buckets are per key
    clock.now += 1.0
    assert limiter.take("k", per_minute=60, burst=3) is None
    assert limiter.take("k", per_minute=0, burst=1) is None  # 0 turns the limit off


@pytest.fixture
def rated(settings: Settings) -> Iterator[TestClient]:
    tight = settings.model_copy(update={"rate_per_minute": 6.0, "rate_burst": 3})
    with TestClient(create_app(tight)) as client:
        yield client


@pytest.fixture
def bounded(settings: Settings) -> Iterator[TestClient]:
    tight = settings.model_copy(update={"max_matrix_items": 20, "max_active_evaluations": 1})
    with TestClient(create_app(tight)) as client:
        yield client


def test_a_key_over_its_rate_gets_429_with_retry_after(rated: TestClient) -> None:
    a, b = make_team(rated, "a"), make_team(rated, "b")
    codes = [rated.get("/v1/targets", headers=a.member).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    over = rated.get("/v1/targets", headers=a.member)
    assert over.status_code == 429 and over.headers["content-type"] == "application/problem+json"
    assert 1 <= int(over.headers["retry-after"]) <= 10
    assert rated.get("/v1/targets", headers=b.member).status_code == 200  # another key is unaffected


def _target(client: TestClient, headers: dict[str, str]) -> str:
    body = {"name": "t", "base_url": TARGET_URL, "model": "m"}
    return client.post("/v1/targets", headers=headers, json=body).json()["id"]


def test_an_evaluation_over_the_matrix_limit_is_422_naming_repeats(bounded: TestClient) -> None:
    team = make_team(bounded, "a")
    body = {"target_id": _target(bounded, team.member), "suite": "full", "repeats": 3}  # 9 x 3 = 27 > 20
    too_big = bounded.post("/v1/evaluations", headers=team.member, json=body)
    assert too_big.status_code == 422, too_big.text
    assert too_big.json()["field"] == "repeats" and "27 items" in too_big.json()["detail"]
    assert bounded.get("/v1/evaluations", headers=team.member).json()["items"] == []


async def _slow_bot(request: httpx.Request) -> httpx.Response:
    await asyncio.sleep(20)
    return careful_bot(request)


def test_a_team_with_an_active_evaluation_waits_for_it(
    bounded: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=_slow_bot)
    a, b = make_team(bounded, "a"), make_team(bounded, "b")
    target_a, target_b = _target(bounded, a.admin), _target(bounded, b.admin)
    first = bounded.post("/v1/evaluations", headers=a.admin, json={"target_id": target_a})
    assert first.status_code == 202
    second = bounded.post("/v1/evaluations", headers=a.admin, json={"target_id": target_a, "repeats": 2})
    assert second.status_code == 429 and second.json()["field"] == "status" and second.headers["retry-after"]
    other_team = bounded.post("/v1/evaluations", headers=b.admin, json={"target_id": target_b})
    assert other_team.status_code == 202  # the limit is per team
    bounded.post(f"/v1/evaluations/{first.json()['id']}/cancel", headers=a.admin)
    again = bounded.post("/v1/evaluations", headers=a.admin, json={"target_id": target_a, "repeats": 2})
    assert again.status_code == 202  # a cancelled evaluation no longer counts
    for evaluation, owner in ((again, a), (other_team, b)):
        cancel = f"/v1/evaluations/{evaluation.json()['id']}/cancel"
        assert bounded.post(cancel, headers=owner.admin).is_success
