"""A running shard holds arq's in-progress key only while it runs: renewed past its lease while the shard is alive,
put back after Redis came back empty, and left to lapse once the shard ends (so another worker takes the job)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from arq import create_pool
from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix

from app.queue.arq_queue import redis_settings
from app.workers.lease import held
from tests.redis_proxy import CuttableRedis
from tests.waits import eventually_async

pytestmark = pytest.mark.redis
LEASE_S = 0.6


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[ArqRedis]:
    pool = await create_pool(redis_settings(redis_url))
    yield pool
    await pool.aclose()


def job_id() -> str:
    return f"ev_t{uuid.uuid4().hex[:12]}:shard:0"


async def test_the_lease_outlives_its_ttl_while_the_shard_runs_and_lapses_after(redis: ArqRedis) -> None:
    job = job_id()
    key = in_progress_key_prefix + job
    async with held(redis, job, LEASE_S):
        await eventually_async(lambda: redis.exists(key), what="the lease to be taken")
        assert 0 < await redis.pttl(key) <= LEASE_S * 1000
        await asyncio.sleep(LEASE_S * 3)  # three leases long: only renewals keep it
        assert await redis.exists(key) == 1
    await eventually_async(lambda: redis.exists(key), lambda n: n == 0, what="the lease to lapse")


async def test_outside_an_arq_job_holding_is_a_no_op(redis: ArqRedis) -> None:
    async with held(None, "j", LEASE_S), held(redis, None, LEASE_S):
        pass
    assert [k async for k in redis.scan_iter(match=in_progress_key_prefix + "*")] == []


async def test_redis_away_is_waited_out_and_an_emptied_redis_gets_the_lease_back(
    redis: ArqRedis, redis_url: str
) -> None:
    proxy = CuttableRedis(redis_url)
    through_proxy = await create_pool(redis_settings(proxy.url))
    job = job_id()
    key = in_progress_key_prefix + job
    try:
        async with held(through_proxy, job, LEASE_S):
            await eventually_async(lambda: redis.exists(key), what="the lease to be taken")
            proxy.cut()
            await redis.delete(key)  # Redis came back empty (a restart without persistence)
            await asyncio.sleep(LEASE_S)  # renewals fail meanwhile: the shard carries on
            proxy.start()
            await eventually_async(lambda: redis.exists(key), what="the lease to be put back")
    finally:
        await through_proxy.aclose()
        proxy.close()
        await redis.delete(key)
