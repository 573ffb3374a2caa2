"""Status names: which states still owe work and which never change again."""

from __future__ import annotations

from typing import get_args

from app.store.statuses import ACTIVE, BATCH_DONE, TERMINAL, Status


def test_every_status_is_either_active_or_terminal_and_never_both() -> None:
    assert set(ACTIVE) | set(TERMINAL) == set(get_args(Status))
    assert not set(ACTIVE) & set(TERMINAL)


def test_queued_and_running_are_active_and_a_budget_stop_is_terminal() -> None:
    assert ACTIVE == ("queued", "running")
    assert "stopped_by_budget" in TERMINAL and "cancelled" in TERMINAL


def test_a_grade_batch_ends_only_succeeded_or_failed() -> None:
    assert set(BATCH_DONE) == {"succeeded", "failed"}
    assert set(BATCH_DONE) <= set(TERMINAL)
