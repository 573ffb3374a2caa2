"""Evaluations this process is settling now, so two of its shards that end together build one report, not two.

The report is built before the settling transaction (app/runner/shard.py: finish_evaluation), so the guarded
update no longer stops a second finisher early: every shard that finds the items complete would build the whole
report (seconds of CPU for a full suite) only to lose the update. A process's shards often end together (they
share the target's slots), so a finisher that sees another thread of its process settling the same evaluation
leaves it to that one. Across processes the guarded update still decides; a second build there is rare.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class SettlingNow:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: set[str] = set()

    @contextmanager
    def claim(self, evaluation_id: str) -> Iterator[bool]:
        """True inside if this thread settles the evaluation; False if another thread of the process already is."""
        with self._lock:
            mine = evaluation_id not in self._ids
            self._ids.add(evaluation_id)
        try:
            yield mine
        finally:
            if mine:
                with self._lock:
                    self._ids.discard(evaluation_id)
