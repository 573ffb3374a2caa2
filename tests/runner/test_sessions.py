"""Target sessions: with Redis configured, sessions of different processes keep one limit per target."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from app.config import Settings
from app.limits.host_target_gate import HostTargetGate
from app.limits.shared_target_gate import SharedTargetGate
from app.limits.target_gate import TargetGate
from app.runner.sessions import TargetSessions
from app.targets.base import TargetConfig
from bench.mock_target import MockConfig, running_mock

MESSAGES = [{"role": "user", "content": "hello"}]


def _config(base_url: str, concurrency: int) -> TargetConfig:
    return TargetConfig(kind="openai_chat", base_url=base_url + "/v1", model="m", max_concurrency=concurrency)


@pytest.mark.redis
async def test_sessions_of_two_processes_share_the_target_concurrency(
    settings: Settings, redis_url: str
) -> None:
    scale_out = settings.model_copy(
        update={"redis_url": redis_url, "queue_name": f"helmbench:test:{uuid.uuid4().hex[:8]}"}
    )
    processes = [TargetSessions(), TargetSessions()]  # each worker process holds its own
    async with running_mock(MockConfig(latency=0.05)) as base:
        config = _config(base, concurrency=3)

        async def calls(sessions: TargetSessions) -> list[bool]:
            async with sessions.use("target-1", config, scale_out) as session:
                assert isinstance(session.gate, SharedTargetGate)
                replies = await asyncio.gather(*(session.adapter.complete(MESSAGES) for _ in range(15)))
                return [reply.ok for reply in replies]

        outcomes = await asyncio.gather(*(calls(p) for p in processes))
        async with httpx.AsyncClient() as client:
            stats = (await client.get(base + "/stats")).json()
        for sessions in processes:
            await sessions.aclose()
    assert all(ok for results in outcomes for ok in results)
    assert stats["requests"] == 30 and stats["max_in_flight"] == 3  # 6 if each process kept its own gate
    assert all(sessions.shared is None for sessions in processes)  # the Redis clients were closed


async def test_embedded_sessions_keep_a_local_gate_and_no_redis(settings: Settings) -> None:
    sessions = TargetSessions()
    async with running_mock(MockConfig(latency=0.0)) as base:
        async with sessions.use("target-1", _config(base, concurrency=2), settings) as session:
            assert type(session.gate) is TargetGate
            assert (await session.adapter.complete(MESSAGES)).ok
        await sessions.aclose()
    assert sessions.shared is None


async def test_sessions_of_several_local_workers_count_the_targets_concurrency_together(
    settings: Settings,
) -> None:
    three_workers = settings.model_copy(update={"local_worker": True, "local_workers": 3})
    processes = [TargetSessions() for _ in range(3)]  # each local worker process holds its own
    async with running_mock(MockConfig(latency=0.05)) as base:
        config = TargetConfig(
            kind="openai_chat",
            base_url=base + "/v1",
            model="m",
            max_concurrency=7,
            requests_per_minute=600,
        )

        async def calls(sessions: TargetSessions) -> list[bool]:
            async with sessions.use("target-1", config, three_workers) as session:
                assert isinstance(session.gate, HostTargetGate)
                replies = await asyncio.gather(*(session.adapter.complete(MESSAGES) for _ in range(10)))
                return [reply.ok for reply in replies]

        outcomes = await asyncio.gather(*(calls(p) for p in processes))
        async with httpx.AsyncClient() as client:
            stats = (await client.get(base + "/stats")).json()
        for sessions in processes:
            await sessions.aclose()
    assert all(ok for results in outcomes for ok in results)
    # the cap counted together: all 7 used, never the 21 of three gates of their own (nor 6, three of 7 // 3)
    assert stats["requests"] == 30 and stats["max_in_flight"] == 7
