"""Evaluations this process is settling now, so two of its shards that end together build one report, not two.

The report is built before the settling transaction (app/runner/shard.py: finish_evaluation), so the guarded
update no longer stops a second finisher early: every shard that finds the items complete would build the whole
report (seconds of CPU for a full suite) only to lose the update. A process's shards often end together (they
share the target's slots), so a finisher that sees another thread of its process settling the same evaluation
leaves it to that one. Across processes the guarded update still decides; a second build there is rare.

Leaving it must not lose the settle: the thread at it may have looked before this finisher's last items were
written and found the run not ready. So a finisher that leaves asks it to look again, and it does before it lets
go of the evaluation.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class SettlingNow:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: set[str] = set()
        self._again: set[str] = set()  # settling now, and a finisher came meanwhile: look once more

    def settle(self, evaluation_id: str, attempt: Callable[[], T | None]) -> T | None:
        """Runs `attempt` (None: not ready) unless another thread of the process is at it, in which case that
        thread runs it once more after its own try; returns what this thread's tries gave."""
        with self._lock:
            if evaluation_id in self._ids:
                self._again.add(evaluation_id)
                return None
            self._ids.add(evaluation_id)
        try:
            while True:
                result = attempt()
                with self._lock:
                    if result is not None or evaluation_id not in self._again:
                        return result
                    self._again.discard(evaluation_id)
        finally:
            with self._lock:
                self._ids.discard(evaluation_id)
                self._again.discard(evaluation_id)
