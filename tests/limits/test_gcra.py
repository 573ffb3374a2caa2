"""GCRA, the one rate algorithm every process shares through Redis: a saved-up burst is granted at once, then one
unit per interval; the wait it answers and the key it leaves follow from the arithmetic, on Redis's clock."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from app.limits.gcra import GCRA_LUA, Pace, limits_key, wait_seconds

MINUTE_MS = 60_000


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    made = redis.Redis.from_url(redis_url)
    yield made
    made.close()


@pytest.fixture
def key(client: redis.Redis) -> Iterator[str]:
    made = limits_key(f"helmbench:test:{uuid.uuid4().hex[:8]}", "target", "t1")
    yield made
    client.delete(made)


def take(client: redis.Redis, key: str, pace: Pace, cost: float = 1) -> float:
    return wait_seconds(client.eval(GCRA_LUA, 1, key, *pace.args(cost)))  # type: ignore[arg-type]


def test_pace_is_the_interval_per_unit_and_a_window_of_the_burst() -> None:
    assert Pace.per_minute(rate=120, burst=5) == Pace(interval_ms=500, window_ms=2_500)
    assert Pace.per_period(10, 1_000) == Pace(interval_ms=100, window_ms=1_000), "all ten at once when saved"
    assert Pace.per_minute(rate=60, burst=1).args(cost=3) == [1_000, 1_000, 3]
    assert wait_seconds(b"1500") == 1.5 and wait_seconds(0) == 0


def test_limits_of_deployments_sharing_a_redis_never_share_a_key() -> None:
    assert limits_key("helmbench", "target", "t1") == "helmbench:limits:target:t1"
    assert limits_key("staging", "target", "t1") != limits_key("helmbench", "target", "t1")


@pytest.mark.redis
def test_a_burst_is_granted_at_once_then_the_next_waits_one_interval(client: redis.Redis, key: str) -> None:
    pace = Pace.per_minute(rate=1, burst=3)  # a unit a minute: no test runs long enough to earn another
    assert [take(client, key, pace) for _ in range(3)] == [0, 0, 0]
    wait = take(client, key, pace)
    assert MINUTE_MS / 1000 - 30 < wait <= MINUTE_MS / 1000, "one interval, less the moments since the burst"
    assert take(client, key, pace) == pytest.approx(wait, abs=30), "a refused call takes nothing"


@pytest.mark.redis
def test_a_costlier_call_needs_more_room_and_a_refusal_leaves_the_schedule(
    client: redis.Redis, key: str
) -> None:
    pace = Pace.per_minute(rate=1, burst=3)
    assert take(client, key, pace, cost=2) == 0
    assert take(client, key, pace, cost=2) > 30, "one unit of room left, two asked"
    assert take(client, key, pace, cost=1) == 0, "the refused call took nothing"
    assert take(client, key, pace, cost=4) > 3 * 60 - 30, "more than the burst: four intervals away"


@pytest.mark.redis
def test_the_key_expires_when_the_bucket_would_be_full_again(client: redis.Redis, key: str) -> None:
    pace = Pace.per_minute(rate=1, burst=3)
    take(client, key, pace)
    take(client, key, pace)
    ttl_ms = client.pttl(key)
    assert 2 * MINUTE_MS - 30_000 < ttl_ms <= 2 * MINUTE_MS + 1, (
        "two units spent: full again in two intervals"
    )
