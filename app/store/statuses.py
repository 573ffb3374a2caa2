"""The states an evaluation, a grade batch and a queued job move through, named once for the store, the
runner, the API's schemas and the CLI that polls them."""

from __future__ import annotations

from typing import Literal

Status = Literal["queued", "running", "succeeded", "failed", "cancelled", "stopped_by_budget"]
ActiveStatus = Literal["queued", "running"]

ACTIVE: tuple[ActiveStatus, ...] = ("queued", "running")  # still changing: a worker owes it work
TERMINAL: tuple[Status, ...] = (
    "succeeded",
    "failed",
    "cancelled",
    "stopped_by_budget",
)  # never changes again
BATCH_DONE: tuple[Status, ...] = ("succeeded", "failed")  # a grade batch is never cancelled nor budgeted
