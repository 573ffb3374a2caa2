"""A key's request rate: a token bucket per key, and 429 with Retry-After when a key is over it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.limits.api_rate import RateLimiter
from app.main import create_app
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


def test_a_key_over_its_rate_gets_429_with_retry_after(rated: TestClient) -> None:
    a, b = make_team(rated, "a"), make_team(rated, "b")
    codes = [rated.get("/v1/targets", headers=a.member).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    over = rated.get("/v1/targets", headers=a.member)
    assert over.status_code == 429 and over.headers["content-type"] == "application/problem+json"
    assert 1 <= int(over.headers["retry-after"]) <= 10
    assert rated.get("/v1/targets", headers=b.member).status_code == 200  # another key is unaffected
