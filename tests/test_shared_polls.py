"""One poll per key per period for every caller of a process: the shards watching an evaluation for a cancel,
the streams following its progress."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from app.shared_polls import SharedPolls
from tests.conftest import UNRETRIEVED


class Poll:
    """A blocking poll that counts its calls and answers what `answer` holds."""

    def __init__(self, answer: bool = False) -> None:
        self.calls = 0
        self.answer = answer
        self.release = threading.Event()
        self.release.set()

    def __call__(self) -> bool:
        self.calls += 1
        self.release.wait(5)
        return self.answer


async def test_shards_polling_within_a_period_share_one_query() -> None:
    polls, poll = SharedPolls[bool](period_s=60), Poll(answer=True)
    answers = await asyncio.gather(*(polls.get("e1", poll) for _ in range(8)))
    assert answers == [True] * 8 and poll.calls == 1


async def test_each_evaluation_and_each_period_is_asked_again() -> None:
    polls, poll = SharedPolls[bool](period_s=0), Poll()
    await polls.get("e1", poll)
    await polls.get("e1", poll)
    await polls.get("e2", poll)
    assert poll.calls == 3


async def test_a_failed_poll_fails_every_shard_that_shared_it() -> None:
    def broken() -> bool:
        raise ConnectionError("database gone")

    polls = SharedPolls[bool](period_s=60)
    results = await asyncio.gather(*(polls.get("e1", broken) for _ in range(3)), return_exceptions=True)
    assert all(isinstance(r, ConnectionError) for r in results)


async def test_a_shard_that_stops_waiting_leaves_the_poll_to_the_others() -> None:
    polls, poll = SharedPolls[bool](period_s=60), Poll(answer=True)
    poll.release.clear()
    leaving = asyncio.create_task(polls.get("e1", poll))
    staying = asyncio.create_task(polls.get("e1", poll))
    await asyncio.sleep(0.05)
    leaving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leaving
    poll.release.set()
    assert await staying is True and poll.calls == 1


async def test_a_poll_failing_after_every_shard_stopped_waiting_is_not_left_unretrieved() -> None:
    """The watchers of shards that end are cancelled while a poll may still be out (a database outage): its
    failure must not surface later as "Task exception was never retrieved"."""
    release = threading.Event()

    def failing() -> bool:
        release.wait(5)
        raise ConnectionError("database gone")

    polls = SharedPolls[bool](period_s=60)
    waiter = asyncio.create_task(polls.get("e1", failing))
    await asyncio.sleep(0.05)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    seen = len(UNRETRIEVED.messages)
    release.set()
    await asyncio.sleep(0.1)
    polls._polls.clear()
    gc.collect()
    assert UNRETRIEVED.messages[seen:] == []
