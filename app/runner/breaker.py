"""A circuit breaker per endpoint of a shard: a dead target (or simulator) ends the run in a bounded number of calls.

Closed, items run. After `after` items in a row whose every attempt failed it opens: no item starts for
`cooldown_s`, then one item runs alone (half-open). Its success closes the breaker and the run goes on; its
failure trips it for good, and the shard ends the evaluation `failed` with `reason`. A success seen while open
(an item already in flight) closes it too: the endpoint answered.
"""

from __future__ import annotations

import asyncio
from collections import deque

# Failures that are the endpoint's: ours (a bug, a cancel) or the other party's (the simulator) are not.
# A 429 on every attempt counts: an exhausted quota answers 429 for good.
ENDPOINT_FAILURES = frozenset({"target_error", "timeout", "bad_response", "rate_limited"})


class Breaker:
    """Shared by the workers of one shard; `admit` before an item, `record` its outcome after."""

    def __init__(self, what: str, *, after: int, cooldown_s: float) -> None:
        self.what = what
        self._after = max(1, after)
        self._cooldown_s = cooldown_s
        self._in_a_row = 0
        self._errors: deque[str] = deque(maxlen=3)
        self._state = "closed"  # closed | open | half_open | trial | tripped
        self._changed = asyncio.Event()
        self._reopen: asyncio.TimerHandle | None = None
        self._trial_by: asyncio.Task[object] | None = None

    @property
    def tripped(self) -> bool:
        return self._state == "tripped"

    @property
    def reason(self) -> str:
        """Why the run stopped, with the last errors, in words a team can act on."""
        last = "; ".join(self._errors) or "no error recorded"
        return (
            f"stopped early: the {self.what} failed every attempt of {self._in_a_row} items in a row and did "
            f"not recover within {self._cooldown_s:g} s (HELMBENCH_BREAKER_AFTER, _COOLDOWN_S); last errors: {last}"
        )

    async def admit(self) -> bool:
        """Wait while the breaker is open or its trial item is out; False once it has tripped."""
        while True:
            if self._state == "closed":
                return True
            if self._state == "tripped":
                return False
            if self._state == "half_open":
                self._state = "trial"
                self._trial_by = asyncio.current_task()
                return True
            self._changed.clear()
            await self._changed.wait()

    def record(self, error_class: str | None, error: str | None) -> None:
        """One item's outcome: None is a success; only the endpoint's own failures count against it."""
        if self._state == "tripped":
            return
        if error_class is None:
            self._in_a_row = 0
            self._set("closed")
            return
        if error_class not in ENDPOINT_FAILURES:
            if self._state == "trial":  # says nothing about the endpoint: let another item try
                self._set("half_open")
            return
        self._in_a_row += 1
        self._errors.append(f"{error_class}: {error}"[:300])
        if self._state == "trial":
            self._set("tripped")
        elif self._state == "closed" and self._in_a_row >= self._after:
            self._set("open")
            self._reopen = asyncio.get_running_loop().call_later(self._cooldown_s, self._half_open)

    def _half_open(self) -> None:
        if self._state == "open":
            self._set("half_open")

    def _set(self, state: str) -> None:
        if state != "open" and self._reopen is not None:
            self._reopen.cancel()
            self._reopen = None
        self._state = state
        self._changed.set()

    def no_item(self) -> None:
        """This worker will not run the trial item (no item left, or it stops): hand the trial to another."""
        if self._state == "trial" and self._trial_by is asyncio.current_task():
            self._set("half_open")

    def stop(self) -> None:
        """Cancel the pending re-open (the shard is ending)."""
        if self._reopen is not None:
            self._reopen.cancel()
            self._reopen = None
