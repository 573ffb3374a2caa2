"""How many shards take items at once in one process, and when a shard makes room for the next one."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable


class Place:
    """One shard's place among those taking items; given back once, whichever comes first of the shard handing
    out its last item and the shard ending."""

    __slots__ = ("_give_back",)

    def __init__(self, give_back: Callable[[], None]) -> None:
        self._give_back: Callable[[], None] | None = give_back

    def give_back(self) -> None:
        give, self._give_back = self._give_back, None
        if give is not None:
            give()


class ShardPlaces:
    """At most `size` shards of one process take items at once (`worker_max_jobs`), and one more place is kept
    for a newcomer: a job whose evaluation (or grade batch) holds no place here.

    Why places and not running shards: a shard that has handed out its last item still waits for its last calls
    (up to a target's latency) and writes its last rows. If the next shard started only then, the target's slots
    would idle at every shard boundary, and shards that started together end together: a full-suite run lost
    ~0.2-0.3 s at each of its boundaries. A shard gives its place back when it hands out its last item, so the
    next one's set-up and first calls overlap the last calls of the one before; the target's concurrency cap
    still bounds the calls of all of them together.

    Why a newcomer's place: fair ranks (app/queue/fair.py) give a quick run the next free place, but a big run's
    shards hold every place for as long as one shard takes (500 items at the big target's pace: seconds to
    minutes). A quick run queued behind it waited that long before its first call (9 s of its 14 s, behind a full
    x 2 run). With the spare place it starts at once; the spare takes one job at a time, so a process never runs
    more than `size` + 1 shards.
    """

    def __init__(self, size: int) -> None:
        self._free = asyncio.Semaphore(size)
        self._spare_free = True
        self._here: Counter[str] = Counter()  # subject (evaluation or batch id) → places it holds

    @property
    def full(self) -> bool:
        """No regular place is free (a take that is not a newcomer's would wait)."""
        return self._free.locked()

    @property
    def spare_free(self) -> bool:
        """The newcomer's place is free."""
        return self._spare_free

    def holds(self, subject: str) -> bool:
        """Whether a job of `subject` holds a place in this process."""
        return self._here[subject] > 0

    async def take(self, subject: str = "", on_give_back: Callable[[], None] | None = None) -> Place:
        """A free place, or for a newcomer while none is, the spare one; else wait for a free place.
        `on_give_back` runs when it is given back (a claim loop waking up)."""
        if self.full and self._spare_free and subject and not self.holds(subject):
            self._spare_free = False
            release = self._give_back_spare
        else:
            await self._free.acquire()
            release = self._free.release
        self._here[subject] += 1

        def give_back() -> None:
            release()
            self._here[subject] -= 1
            if not self._here[subject]:
                del self._here[subject]
            if on_give_back is not None:
                on_give_back()

        return Place(give_back)

    def _give_back_spare(self) -> None:
        self._spare_free = True
