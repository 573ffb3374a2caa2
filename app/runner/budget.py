"""Caps on what a run spends, by what it measures: the calls actually made and the tokens the target reported.

An item takes a share of the evaluation's budget before its first call (app/store/budget.py: its planned cost,
scaled as ShardBudget says); once the target has answered, the share becomes the calls made (every attempt,
retries included: each is a request the target served or refused) and the tokens the target reported in its
replies' `usage`, or, for a call that reported none, the plan's estimate of what it sent and received (4
characters a token, app/benchmark/plan.py). An item the caps no longer allow is not started; if this shard
still has items in flight, it waits for them to be measured first (their shares may shrink and make room), and
only when nothing of its own is left to measure is the budget stopped.

Calls in flight finish, so the measured totals can pass a cap by what the items in flight took beyond their
shares; no item starts that the caps, as measured so far, do not allow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.benchmark.plan import ItemCost, estimate_tokens
from app.store import budget as store

TOKEN_FIELDS = (("total_tokens",), ("prompt_tokens", "completion_tokens"), ("input_tokens", "output_tokens"))
Db = Callable[..., Awaitable[Any]]


def reported_tokens(usage: Mapping[str, Any] | None) -> int | None:
    """Tokens a reply's usage reports (OpenAI or Anthropic field names); None when it reports none."""
    if not usage:
        return None
    for fields in TOKEN_FIELDS:
        values = [usage.get(f) for f in fields]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return sum(values)  # type: ignore[arg-type]
    return None


def estimated_tokens(sent: list[dict[str, str]], reply: str | None) -> int:
    """What one call cost when its target reports nothing: what it sent and what it answered."""
    return sum(estimate_tokens(m["content"]) for m in sent) + estimate_tokens(reply or "")


def call_tokens(usage: Mapping[str, Any] | None, sent: list[dict[str, str]], reply: str | None) -> int:
    reported = reported_tokens(usage)
    return reported if reported is not None else estimated_tokens(sent, reply)


@dataclass(frozen=True)
class Share:
    """What an item holds of the budget until it is measured."""

    calls: int
    tokens: int


@dataclass(frozen=True)
class Held:
    """An item's share, to be replaced by what the item measured."""

    budget: ShardBudget
    cost: ItemCost
    share: Share

    async def measure(self, *, calls: int, tokens: int) -> None:
        await self.budget.measure(self.cost, self.share, calls=calls, tokens=tokens)

    async def keep(self) -> None:
        """Nothing was measured (the item crashed on our side): the share it held stands."""
        await self.measure(calls=self.share.calls, tokens=self.share.tokens)


class ShardBudget:
    """One shard's side of its evaluation's shared budget.

    An item's share is its planned cost scaled up by how far the items this shard measured so far passed
    theirs: a target whose replies run longer than planned (or that needs retries) is charged what it has been
    costing, so the next item is not started on an estimate the run has already shown to be low.
    """

    def __init__(self, db: Db, engine: Any, evaluation_id: str):
        self._db, self._engine, self._id = db, engine, evaluation_id
        self._in_flight = 0
        self._measured = asyncio.Event()
        self._planned = [0, 0]  # calls, tokens planned for the items measured so far
        self._spent = [0, 0]  # calls, tokens they measured
        self.stopped = False

    def share(self, cost: ItemCost) -> Share:
        planned = (cost.calls, cost.prompt_tokens + cost.completion_tokens)
        scaled = [
            max(p, -(-p * spent // before)) if before else p
            for p, spent, before in zip(planned, self._spent, self._planned, strict=True)
        ]
        return Share(*scaled)

    async def reserve(self, cost: ItemCost) -> Held | None:
        """Take the item's share; None when the caps, as measured, leave no room for it."""
        while not self.stopped:
            measured = self._measured  # taken before asking, so a measurement meanwhile is not missed
            share = self.share(cost)
            taken = await self._db(
                store.reserve,
                engine=self._engine,
                evaluation_id=self._id,
                calls=share.calls,
                tokens=share.tokens,
            )
            if taken:
                self._in_flight += 1
                return Held(self, cost, share)
            if not self._in_flight:
                self.stopped = True
                await self._db(store.stop, engine=self._engine, evaluation_id=self._id)
                break
            await measured.wait()
        return None

    async def measure(self, cost: ItemCost, share: Share, *, calls: int, tokens: int) -> None:
        """The item's share becomes what it measured."""
        self._planned[0] += cost.calls
        self._planned[1] += cost.prompt_tokens + cost.completion_tokens
        self._spent[0] += calls
        self._spent[1] += tokens
        try:
            await self._db(
                store.true_up,
                engine=self._engine,
                evaluation_id=self._id,
                calls=calls - share.calls,
                tokens=tokens - share.tokens,
            )
        finally:
            self._in_flight -= 1
            self._measured.set()
            self._measured = asyncio.Event()
