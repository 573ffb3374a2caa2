"""Redis restarted empty: a target's concurrency cap is rebuilt by the holders still calling, not left open."""

from __future__ import annotations

import asyncio

import pytest

from app.limits.shared_target_gate import RedisLimits, SharedTargetGate
from bench.redis_server import OwnRedis
from tests.waits import eventually_async

pytestmark = pytest.mark.redis  # a Redis of the test's own, restarted without persistence


async def test_live_holders_put_their_slots_back_after_redis_loses_them() -> None:
    with OwnRedis() as server:
        holder_side = RedisLimits.from_url(server.url, "helmbench:loss")
        other_side = RedisLimits.from_url(server.url, "helmbench:loss")
        holder = SharedTargetGate(holder_side, "tgt", 1, lease_s=0.6)
        other = SharedTargetGate(other_side, "tgt", 1, lease_s=0.6)
        slots = holder_side.keys("tgt").slots
        try:
            async with holder.slot():
                server.restart_empty()
                assert await holder_side.redis.zcard(slots) == 0  # the cap is gone with the data
                await eventually_async(  # the holder's next renewal rebuilds it
                    lambda: holder_side.redis.zcard(slots), what="the slot to be rebuilt", every=0.02
                )
                second = asyncio.create_task(_hold_once(other))
                await asyncio.sleep(0.3)
                assert not second.done()  # the rebuilt cap holds the second caller back
            await asyncio.wait_for(second, 10)  # and lets it in once the first is done
        finally:
            await holder_side.aclose()
            await other_side.aclose()


async def _hold_once(gate: SharedTargetGate) -> None:
    async with gate.slot():
        pass
