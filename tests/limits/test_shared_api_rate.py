"""The per-key rate in scale-out mode: API replicas on one Redis and one PostgreSQL spend from one bucket."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.limits.api_rate import LimiterUnavailable
from app.limits.shared_api_rate import SharedRateLimiter
from app.main import create_app
from app.store.migrate import upgrade
from bench.ports import free_port
from tests.redis_proxy import CuttableRedis
from tests.security.conftest import make_team

RATE = {"rate_per_minute": 2.0, "rate_burst": 3}  # 3 at once, then one every 30 s: no refill within a test


@pytest.fixture
def scale_out(settings: Settings, redis_url: str, postgres_url: str) -> Settings:
    """Scale-out settings on a fresh database, under a queue name of their own."""
    update = {"redis_url": redis_url, "database_url": postgres_url, "queue_name": _queue_name(), **RATE}
    shared = settings.model_copy(update=update)
    upgrade(shared)
    return shared


def _queue_name() -> str:
    return f"helmbench:test:{uuid.uuid4().hex[:8]}"


@contextmanager
def replicas(*each: Settings) -> Iterator[list[TestClient]]:
    """One started app per settings, as separate API processes behind a load balancer."""
    with ExitStack() as stack:
        yield [stack.enter_context(TestClient(create_app(s))) for s in each]


def _is_rate_limited(response: httpx.Response) -> None:
    """The 429 the embedded default gives (tests/security/test_limits.py), unchanged."""
    assert response.status_code == 429, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert 1 <= int(response.headers["retry-after"]) <= 30
    body = response.json()
    assert body["title"] == "Too many requests" and body["field"] == "Authorization"
    assert (
        body["detail"]
        == f"rate limit: 2 requests per minute per key; retry in {response.headers['retry-after']}s"
    )


@pytest.mark.redis
@pytest.mark.postgres
def test_two_replicas_together_allow_one_burst_per_key(scale_out: Settings) -> None:
    with replicas(scale_out, scale_out) as (one, two):
        a, b = make_team(one, "a"), make_team(one, "b")
        codes = [api.get("/v1/targets", headers=a.member).status_code for api in (one, two, one)]
        assert codes == [200, 200, 200]  # alone, each replica would allow 3
        _is_rate_limited(two.get("/v1/targets", headers=a.member))
        _is_rate_limited(one.get("/v1/targets", headers=a.member))
        assert two.get("/v1/targets", headers=b.member).status_code == 200  # another key has its own bucket
        assert two.get("/v1/targets", headers=a.admin).status_code == 200  # buckets are per key, not per team


@pytest.mark.redis
@pytest.mark.postgres
def test_deployments_with_another_queue_name_keep_their_own_buckets(scale_out: Settings) -> None:
    other = scale_out.model_copy(update={"queue_name": _queue_name()})
    with replicas(scale_out, other) as (here, elsewhere):
        a = make_team(here, "a")
        assert [here.get("/v1/targets", headers=a.member).status_code for _ in range(4)][-1] == 429
        assert elsewhere.get("/v1/targets", headers=a.member).status_code == 200


@pytest.mark.redis
@pytest.mark.postgres
def test_unreachable_redis_is_503_with_retry_after_and_recovers(scale_out: Settings) -> None:
    proxy = CuttableRedis(scale_out.redis_url or "")
    try:
        with replicas(scale_out.model_copy(update={"redis_url": proxy.url})) as (api,):
            a = make_team(api, "a")
            assert api.get("/v1/targets", headers=a.member).status_code == 200
            proxy.cut()
            down = api.get("/v1/targets", headers=a.member)
            assert down.status_code == 503 and down.headers["content-type"] == "application/problem+json"
            assert down.headers["retry-after"] == "5"
            assert "Redis" in down.json()["detail"] and str(proxy.port) not in down.text
            unknown = api.get("/v1/targets", headers={"Authorization": "Bearer nope"})
            assert unknown.status_code == 401  # the key is checked before its rate, as before
            proxy.start()
            assert api.get("/v1/targets", headers=a.member).status_code == 200  # no restart needed
    finally:
        proxy.cut()


@pytest.mark.redis
def test_shared_limiter_spends_like_the_in_process_bucket(redis_url: str) -> None:
    limiter = SharedRateLimiter.from_url(redis_url, _queue_name())
    try:
        assert [limiter.take("k", per_minute=60, burst=3) for _ in range(3)] == [None, None, None]
        wait = limiter.take("k", per_minute=60, burst=3)
        assert wait is not None and 0.5 < wait <= 1.0  # one request a second at 60 a minute
        assert limiter.take("other", per_minute=60, burst=3) is None
        assert 0 < limiter.redis.pttl(limiter.key("k")) <= 3001  # the key goes once the bucket is full again
    finally:
        limiter.close()


def test_limit_off_needs_no_redis() -> None:
    limiter = SharedRateLimiter.from_url(f"redis://127.0.0.1:{free_port()}/0", "helmbench:test")
    try:
        assert limiter.take("k", per_minute=0, burst=1) is None  # rate_per_minute = 0 turns the limit off
        with pytest.raises(LimiterUnavailable):
            limiter.take("k", per_minute=60, burst=1)
    finally:
        limiter.close()


def test_a_redis_that_never_answers_fails_the_check_instead_of_hanging() -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # connections queue in the backlog, unanswered
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        limiter = SharedRateLimiter.from_url(url, "helmbench:test")
        try:
            with pytest.raises(LimiterUnavailable):
                limiter.take("k", per_minute=60, burst=1)
        finally:
            limiter.close()


def test_embedded_default_keeps_a_bucket_per_process(settings: Settings) -> None:
    """No Redis: each process limits on its own (exact, as the embedded default runs one API process)."""
    embedded = settings.model_copy(update=RATE)
    with replicas(embedded, embedded) as (one, two):
        a = make_team(one, "a")
        assert [one.get("/v1/targets", headers=a.member).status_code for _ in range(4)] == [
            200,
            200,
            200,
            429,
        ]
        assert two.get("/v1/targets", headers=a.member).status_code == 200
