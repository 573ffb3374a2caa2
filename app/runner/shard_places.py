"""How many shards take items at once in one process, and when a shard makes room for the next one."""

from __future__ import annotations

import asyncio
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
    """At most `size` shards of one process take items at once (`worker_max_jobs`).

    Why places and not running shards: a shard that has handed out its last item still waits for its last calls
    (up to a target's latency) and writes its last rows. If the next shard started only then, the target's slots
    would idle at every shard boundary, and shards that started together end together: a full-suite run lost
    ~0.2-0.3 s at each of its boundaries. A shard gives its place back when it hands out its last item, so the
    next one's set-up and first calls overlap the last calls of the one before; the target's concurrency cap
    still bounds the calls of all of them together.
    """

    def __init__(self, size: int) -> None:
        self._free = asyncio.Semaphore(size)

    @property
    def full(self) -> bool:
        """No place is free (a take would wait)."""
        return self._free.locked()

    async def take(self, on_give_back: Callable[[], None] | None = None) -> Place:
        """Wait for a free place; `on_give_back` runs when it is given back (a claim loop waking up)."""
        await self._free.acquire()

        def give_back() -> None:
            self._free.release()
            if on_give_back is not None:
                on_give_back()

        return Place(give_back)
