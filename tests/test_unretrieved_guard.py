"""The suite's guard against swallowed task failures works: a task that fails unawaited is reported."""

from __future__ import annotations

import asyncio
import gc

from tests.conftest import UNRETRIEVED


async def test_a_task_failing_unawaited_is_reported_to_the_guard() -> None:
    async def boom() -> None:
        raise RuntimeError("nobody awaits me")

    task = asyncio.create_task(boom())
    await asyncio.sleep(0.01)
    seen = len(UNRETRIEVED.messages)
    del task
    gc.collect()
    found = UNRETRIEVED.messages[seen:]
    UNRETRIEVED.messages[seen:] = []  # reported, as it should be; this test must not fail on it
    assert found and "RuntimeError" in found[0]
