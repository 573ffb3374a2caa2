"""Replies that arrive close together are graded together, in the order they came, and none waits for long."""

from __future__ import annotations

import asyncio

from app.runner.grading_turns import GradingTurns


async def _callers(turns: GradingTurns, n: int, resumed: list[int]) -> list[asyncio.Task[None]]:
    async def caller(i: int) -> None:
        await turns.wait()
        resumed.append(i)

    tasks = [asyncio.create_task(caller(i)) for i in range(n)]
    for _ in range(3):
        await asyncio.sleep(0)  # every caller is waiting now
    return tasks


async def test_a_full_turn_starts_at_once_in_arrival_order() -> None:
    turns = GradingTurns(size=4, wait_s=3600)  # only a full turn can start these
    resumed: list[int] = []
    tasks = await _callers(turns, 3, resumed)
    assert resumed == []  # three of four: still gathering
    tasks += await _callers(turns, 1, resumed)
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=5)
    assert resumed == [0, 1, 2, 0]  # the fourth caller (its own index 0) completed the turn and went last


async def test_a_lone_reply_is_graded_after_the_short_wait() -> None:
    turns = GradingTurns(size=1000, wait_s=0.001)
    resumed: list[int] = []
    tasks = await _callers(turns, 2, resumed)
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=5)
    assert resumed == [0, 1]


async def test_a_cancelled_caller_leaves_the_others_their_turn() -> None:
    turns = GradingTurns(size=3, wait_s=3600)
    resumed: list[int] = []
    tasks = await _callers(turns, 2, resumed)
    tasks[0].cancel()
    tasks += await _callers(turns, 1, resumed)
    await asyncio.wait_for(asyncio.gather(*tasks[1:]), timeout=5)
    assert tasks[0].cancelled() and resumed == [1, 0]
