"""Shared limits on a real Redis: gates in different processes (here: different clients) keep one cap and budget."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
import respx

from app.limits.gcra import limits_key
from app.limits.shared_target_gate import PRESENCE_GRACE_S, SWEEP_PERIOD_S, RedisLimits, SharedTargetGate
from app.net.call_failed import CallFailed
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy
from bench.ports import free_port
from tests.redis_proxy import CuttableRedis
from tests.waits import eventually_async

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parents[2]
Connect = Callable[..., RedisLimits]


@pytest.fixture
def namespace() -> str:
    return f"helmbench:test:{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def connect(redis_url: str, namespace: str) -> AsyncIterator[Connect]:
    """A fresh client per call, as each worker process holds its own; all closed after the test."""
    made: list[RedisLimits] = []

    def make(url: str = redis_url, ns: str = namespace) -> RedisLimits:
        made.append(RedisLimits.from_url(url, ns))
        return made[-1]

    yield make
    for limits in made:
        await limits.aclose()


async def _saturate(gates: list[SharedTargetGate], calls: int, hold_s: float) -> int:
    """Run `calls` attempts spread over the gates; returns the most that held a slot at once."""
    holding = peak = 0

    async def call(gate: SharedTargetGate) -> None:
        nonlocal holding, peak
        async with gate.slot():
            holding += 1
            peak = max(peak, holding)
            await asyncio.sleep(hold_s)
            holding -= 1

    await asyncio.gather(*(call(gates[i % len(gates)]) for i in range(calls)))
    return peak


async def _granted_within(gates: list[SharedTargetGate], seconds: float, estimated_tokens: int = 0) -> int:
    """How many attempts the gates let through together in `seconds`, four callers per gate."""
    granted = 0

    async def keep_calling(gate: SharedTargetGate) -> None:
        nonlocal granted
        while True:
            async with gate.slot(estimated_tokens):
                granted += 1

    tasks = [asyncio.create_task(keep_calling(g)) for g in gates for _ in range(4)]
    await asyncio.sleep(seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return granted


async def test_gates_of_two_processes_never_exceed_max_concurrency_together(connect: Connect) -> None:
    gates = [SharedTargetGate(connect(), "t1", 3, lease_s=10) for _ in range(2)]
    assert await _saturate(gates, calls=40, hold_s=0.02) == 3  # each gate alone would let 3 through


async def test_requests_per_minute_is_one_budget_across_processes(connect: Connect) -> None:
    gates = [SharedTargetGate(connect(), "t1", 8, requests_per_minute=30, lease_s=10) for _ in range(2)]
    # One minute's 30 at once, then one every 2 s: a second more adds at most one (60 if not shared).
    assert 30 <= await _granted_within(gates, 1.0) <= 31


async def test_tokens_per_minute_is_shared_and_counts_the_estimate(connect: Connect) -> None:
    gates = [SharedTargetGate(connect(), "t1", 8, tokens_per_minute=1000, lease_s=10) for _ in range(2)]
    assert await _granted_within(gates, 0.5, estimated_tokens=300) == 3  # the 4th waits ~12 s for 200 tokens


def _holder_script(redis_url: str, namespace: str, lease_s: float) -> str:
    """A process that takes one of t1's two slots, says so, and holds it until it is killed."""
    return textwrap.dedent(f"""
        import asyncio
        from app.limits.shared_target_gate import RedisLimits, SharedTargetGate

        async def main() -> None:
            gate = SharedTargetGate(
                RedisLimits.from_url({redis_url!r}, {namespace!r}), "t1", 2, lease_s={lease_s}
            )
            async with gate.slot():
                print("holding", flush=True)
                await asyncio.sleep(600)

        asyncio.run(main())
    """)


async def test_slot_held_by_a_killed_process_comes_back_long_before_its_lease(
    connect: Connect, redis_url: str, namespace: str
) -> None:
    script = _holder_script(redis_url, namespace, lease_s=600)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"holding\n"
    finally:
        proc.kill()  # SIGKILL: no release, no cleanup; only its closed connection tells
        proc.wait(10)
        proc.stdout.close()
    live = SharedTargetGate(connect(), "t1", 2, lease_s=600)
    async with live.slot():  # the other slot, held throughout: the cap stays full
        gate = SharedTargetGate(connect(), "t1", 2, lease_s=600)
        async with asyncio.timeout(60), gate.slot():  # the dead holder's lease had ten minutes to run
            assert live.window.in_flight == 1


async def test_a_live_process_whose_connection_dropped_keeps_its_slots(
    connect: Connect, redis_url: str
) -> None:
    holder_side = connect()
    holder = SharedTargetGate(holder_side, "t1", 1, lease_s=600)
    other = SharedTargetGate(connect(), "t1", 1, lease_s=600)
    async with holder.slot():
        await _drop_presence_connection(holder_side)
        waiter = asyncio.create_task(_hold_once(other))
        with pytest.raises(
            TimeoutError
        ):  # sweeps run meanwhile; the holder subscribed again within the grace
            await asyncio.wait_for(asyncio.shield(waiter), PRESENCE_GRACE_S + 3 * SWEEP_PERIOD_S)
        assert await holder_side.redis.zcard(holder_side.keys("t1").slots) == 1
    await asyncio.wait_for(waiter, 10)  # released: the waiter is let in


async def _drop_presence_connection(limits: RedisLimits) -> None:
    """Close the process's presence connection from the server's side, as a network blip would."""
    pubsub = limits._pubsub
    assert pubsub is not None and pubsub.connection is not None
    host, port = pubsub.connection._writer.get_extra_info("sockname")[:2]  # type: ignore[union-attr]
    assert await limits.redis.client_kill_filter(_type=None, addr=f"{host}:{port}") == 1
    channel = limits_key(limits.namespace, "presence") + ":" + limits.owner
    await eventually_async(
        lambda: limits.redis.pubsub_numsub(channel),
        lambda subscribers: subscribers[0][1] > 0,
        what="the limiter to subscribe again",
        timeout=10,
        every=0.01,
    )


async def _hold_once(gate: SharedTargetGate) -> None:
    async with gate.slot():
        pass


async def test_targets_and_deployments_do_not_share_limits(connect: Connect) -> None:
    def gate(target_id: str, limits: RedisLimits) -> SharedTargetGate:
        return SharedTargetGate(limits, target_id, 1, requests_per_minute=1, lease_s=10)

    here, other_deployment = connect(), connect(ns=f"helmbench:test:{uuid.uuid4().hex[:8]}")
    async with gate("t1", here).slot():  # t1's only slot, and its only request this minute
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3), gate("t1", connect()).slot():
                pass  # same target, same deployment: it waits
        for other in (gate("t2", here), gate("t1", other_deployment)):
            async with asyncio.timeout(2), other.slot():
                pass


async def test_cancelled_waiter_leaves_no_slot_behind(connect: Connect) -> None:
    gate = SharedTargetGate(connect(), "t1", 1, lease_s=30)  # a leaked slot would block for 30 s
    async with gate.slot():
        waiter = asyncio.create_task(SharedTargetGate(connect(), "t1", 1, lease_s=30).slot().__aenter__())
        await asyncio.sleep(0.1)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
    async with asyncio.timeout(2), gate.slot():
        assert gate.window.in_flight == 1


async def test_a_slow_attempt_keeps_its_slot_past_the_lease(connect: Connect) -> None:
    gate = SharedTargetGate(connect(), "t1", 1, lease_s=0.6)
    other = SharedTargetGate(connect(), "t1", 1, lease_s=0.6)
    async with gate.slot():  # renewed while held: the target still has this call in flight
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(2), other.slot():
                pass
    async with asyncio.timeout(1), other.slot():  # released at once when the attempt ends
        pass


@respx.mock
async def test_unreachable_redis_fails_the_item_as_our_error_without_calling_the_target(
    connect: Connect, client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    route = respx.post("https://api.example.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})
    )
    gate = SharedTargetGate(connect(f"redis://127.0.0.1:{free_port()}/0"), "t1", 4, lease_s=10)
    config = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m")
    reply = await make_adapter(client, config, fast_policy, 10_000, gate).complete(
        [{"role": "user", "content": "hi"}]
    )
    assert reply.error_class == "our_error" and "shared limits unavailable" in (reply.error or "")
    assert reply.attempts == fast_policy.max_retries + 1  # retryable: the loop tried again
    assert route.call_count == 0 and gate.window.in_flight == 0


async def test_redis_lost_mid_run_fails_attempts_as_our_error_and_recovers(
    connect: Connect, redis_url: str
) -> None:
    proxy = CuttableRedis(redis_url)
    limits = connect(proxy.url)
    gate = SharedTargetGate(limits, "t1", 1, lease_s=1)
    async with gate.slot():
        proxy.cut()  # Redis goes away while the attempt runs; leaving the slot must not raise
    other = SharedTargetGate(limits, "t1", 1, lease_s=1)  # holds no slot: it must ask Redis for one
    with pytest.raises(CallFailed) as failed:
        async with other.slot():
            pytest.fail("no slot may be granted without Redis")
    assert failed.value.error_class == "our_error" and failed.value.retryable
    assert other.window.in_flight == 0
    proxy.start()
    async with asyncio.timeout(10), other.slot():  # back, once the unreleased slot's TTL has run out
        pass
    proxy.cut()


async def test_a_process_uses_its_freed_slot_again_without_asking_redis(connect: Connect) -> None:
    limits = connect()
    asked = 0
    try_hold = limits.try_hold

    async def counted(*args: object, **kwargs: object) -> bool:
        nonlocal asked
        asked += 1
        return await try_hold(*args, **kwargs)  # type: ignore[arg-type]

    limits.try_hold = counted  # type: ignore[method-assign]
    gate = SharedTargetGate(limits, "t1", 2, lease_s=10)
    for _ in range(50):  # one attempt after another, as a shard's items go
        async with gate.slot():
            pass
    assert asked == 1  # one round trip for fifty attempts, where each used to cost two


async def test_a_process_that_keeps_calling_does_not_keep_the_cap_from_another(connect: Connect) -> None:
    """Freed slots serve their own process's next attempts for a while, then go back to Redis: a second
    process waiting for the target gets its turn."""
    busy_limits = connect()
    busy = SharedTargetGate(busy_limits, "t1", 2, lease_s=10)
    stop = asyncio.Event()

    async def keep_calling() -> None:
        while not stop.is_set():
            async with busy.slot():
                await asyncio.sleep(0.01)

    callers = [asyncio.create_task(keep_calling()) for _ in range(4)]
    slots = busy_limits.keys("t1").slots
    await eventually_async(
        lambda: busy_limits.redis.zcard(slots), lambda n: n == 2, what="the busy one holds the cap"
    )
    try:
        async with asyncio.timeout(30), SharedTargetGate(connect(), "t1", 2, lease_s=10).slot():
            pass
    finally:
        stop.set()
        await asyncio.gather(*callers)


async def test_callers_waiting_for_a_full_cap_ask_redis_together(connect: Connect) -> None:
    """Twenty callers waiting in one process cost one script run per poll, not twenty: with a worker per machine
    and hundreds of callers each, Redis would otherwise run the script thousands of times a second for nothing."""
    holder_side = connect()
    holder = SharedTargetGate(holder_side, "t1", 20, lease_s=10)
    waiting_side = connect()
    asked: list[int] = []
    try_hold = waiting_side.try_hold

    async def counted(keys: object, tokens: list[str], *args: object) -> int:
        asked.append(len(tokens))
        return await try_hold(keys, tokens, *args)  # type: ignore[arg-type]

    waiting_side.try_hold = counted  # type: ignore[method-assign]
    waiter = SharedTargetGate(waiting_side, "t1", 20, lease_s=10)
    release = asyncio.Event()
    served = 0

    async def hold_until_released() -> None:
        async with holder.slot():
            await release.wait()

    async def call() -> None:
        nonlocal served
        async with waiter.slot():
            served += 1

    holding = [asyncio.create_task(hold_until_released()) for _ in range(20)]
    slots = holder_side.keys("t1").slots
    await eventually_async(
        lambda: holder_side.redis.zcard(slots), lambda n: n == 20, what="the holder takes the cap"
    )
    callers = [asyncio.create_task(call()) for _ in range(20)]
    await eventually_async(lambda: len(asked), lambda n: n >= 5, what="five polls while the cap is full")
    assert asked[-1] == 20  # the latest poll asked for every waiting caller at once
    release.set()
    async with asyncio.timeout(30):
        await asyncio.gather(*holding, *callers)
    assert served == 20


async def test_slots_freed_together_go_back_to_redis_in_one_command(connect: Connect) -> None:
    """A wave of replies frees many slots in one turn of the loop: one ZREM for them all, not a round trip
    each, and every one of them is free again for another process."""
    limits = connect()
    releases: list[int] = []
    release = limits.release

    async def counted(key: str, *tokens: str) -> None:
        releases.append(len(tokens))
        await release(key, *tokens)

    limits.release = counted  # type: ignore[method-assign]
    gate = SharedTargetGate(limits, "t1", 8, lease_s=10)
    gate._reuse_s = 0.05  # every slot goes back to Redis as its attempt ends, the attempts being longer
    entered = asyncio.Event()
    done = asyncio.Event()

    async def attempt() -> None:
        async with gate.slot():
            if gate.window.in_flight == 8:
                entered.set()
            await done.wait()

    attempts = [asyncio.create_task(attempt()) for _ in range(8)]
    await asyncio.wait_for(entered.wait(), 5)
    slots = limits.keys("t1").slots
    assert await limits.redis.zcard(slots) == 8
    await asyncio.sleep(0.1)
    done.set()
    await asyncio.gather(*attempts)
    await eventually_async(lambda: limits.redis.zcard(slots), lambda n: n == 0, what="every slot released")
    assert releases == [8]
