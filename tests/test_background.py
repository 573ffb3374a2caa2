"""Each kind of process starts its loops from one place: an API process delivers webhooks and keeps the board
rendered, a worker does not, both reconcile, schedule and sweep old transcripts; stopping leaves none running."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.background import start_background, stop_background
from app.config import Settings
from app.queue.inprocess import InProcessQueue
from app.runner.runtime import Runtime, build_runtime
from app.services.board_cache import BoardCache


@pytest.fixture
def deps(settings: Settings) -> Iterator[Runtime]:
    runtime = build_runtime(settings)
    yield runtime
    runtime.engine.dispose()


async def test_an_api_process_runs_every_loop_and_the_board_refresher(deps: Runtime) -> None:
    boards = BoardCache()
    running = start_background(deps, InProcessQueue(deps), kind="api", grace_s=0.0, boards=boards)
    try:
        assert {task.get_name() for task in running.tasks} == {
            "helmbench-webhooks",
            "helmbench-reconcile",
            "helmbench-scheduler",
            "helmbench-retention",
        }
        assert boards.refreshing
    finally:
        await stop_background(running)
    assert all(task.done() for task in running.tasks)
    assert not boards.refreshing


async def test_a_worker_reconciles_schedules_and_sweeps_but_delivers_no_webhook(deps: Runtime) -> None:
    warmed: list[str] = []
    running = start_background(
        deps, InProcessQueue(deps), kind="worker", grace_s=0.0, warm=lambda: warmed.append("warm")
    )
    try:
        names = {task.get_name() for task in running.tasks}
        assert names == {"helmbench-reconcile", "helmbench-scheduler", "helmbench-retention"}
        assert running.boards is None
    finally:
        await stop_background(running)
    assert warmed == ["warm"]  # stopping waits for the warm-up instead of leaving it behind
    assert all(task.done() for task in running.tasks)
