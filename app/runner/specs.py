"""The expanded items of recent (library, suite, repeats): each shard slices them instead of re-expanding.

Why: expanding to reach shard k costs k x shard_size key hashes, so re-expanding per shard is quadratic in the
evaluation size (200 shards of a 100,000-item run would hash 10 million keys). One expansion per process costs
about 20 MB per 100,000 items; two are kept, enough for the evaluations a worker interleaves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from app.benchmark.items import ItemSpec, count_suite, suite_in_run_order
from app.benchmark.loader import Library

KEEP = 2


@dataclass
class SuiteSpecs:
    cache: OrderedDict[tuple[str, str, int], list[ItemSpec]] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def slice(self, library: Library, suite: str, repeats: int, start: int, stop: int) -> list[ItemSpec]:
        """Items start..stop-1 of the suite's run order (called from worker threads, hence the lock)."""
        key = (library.version, suite, repeats)
        with self.lock:
            specs = self.cache.get(key)
            if specs is None:
                specs = self.cache[key] = suite_in_run_order(library, suite, repeats)
                while len(self.cache) > KEEP:
                    self.cache.popitem(last=False)
            self.cache.move_to_end(key)
        return specs[start:stop]

    def warm(self, library: Library) -> None:
        """Expand the library's largest suites ahead of their first run (a worker does it once it takes jobs, in
        a thread): the full suite's order takes ~0.1–0.25 s, which its first shard would otherwise wait for.
        Small suites expand in milliseconds and are left to their first run."""
        largest = sorted(library.suites, key=lambda name: count_suite(library, name), reverse=True)
        for name in largest[:KEEP]:
            self.slice(library, name, 1, 0, 0)
