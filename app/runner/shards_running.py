"""Shards of each evaluation that this process runs now, so that only the last of them to end counts the run.

A shard that ends looks whether its run is complete by counting every item of the run (app/store/evaluations.py:
settlement). Every shard doing so made a run of n items in shards of 500 count n²/500 rows in all: at the full
suite x 3 the largest cost of the database server after the inserts, and growing with the run. A shard that ends
while another shard of the same run is still running in this process leaves the count to that one, which ends
later and looks then. If that one does not end normally, whatever ends it settles or re-runs the run: a cancel or
a breaker gives the run its final status, a hand-back or a crash puts the shard back in the queue, whose next run
looks at its end, and the reconciler settles any run whose items are all written. Leaving and looking at who is
left happen under one lock, so of two shards ending together at least one sees the other gone.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Callable, Iterator


class ShardsRunning:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: Counter[str] = Counter()

    @contextlib.contextmanager
    def running(self, evaluation_id: str) -> Iterator[Callable[[], bool]]:
        """Counts a shard of the evaluation as running while the block runs. Yields `last()`: the shard leaves
        (once) and learns whether no other shard of the evaluation is running in this process."""
        with self._lock:
            self._running[evaluation_id] += 1
        left = False

        def leave() -> bool:
            nonlocal left
            with self._lock:
                if not left:
                    left = True
                    self._running[evaluation_id] -= 1
                alone = self._running[evaluation_id] <= 0
                if alone:
                    del self._running[evaluation_id]
                return alone

        try:
            yield leave
        finally:
            leave()
