"""What every kind of item does, so the planner, the shard runner and the report name no kind themselves.

A suite's `kind` picks one of these (registry.py). A kind plans its suite's cells, costs an item before a run,
plays an item against the target, grades what was played, and builds the report of a run of its items. The
shard runner only calls these; breakers, budgets, batching and resume stay the runner's, the same for every kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from app.targets.base import TargetAdapter, TargetReply

if TYPE_CHECKING:
    from app.benchmark.items import ItemSpec
    from app.benchmark.loader import Library
    from app.benchmark.plan import ItemCost
    from app.benchmark.schema import SuiteSpec
    from app.conversations.simulated_item import Simulator
    from app.grading.grader import Grader
    from app.scoring.facets import StoredItem

# (scenario, condition, user context or None, perturbation) ids, qualified: what the item key is hashed from
Cell = tuple[str, str, str | None, str]


@dataclass(frozen=True)
class PlayContext:
    """What one shard hands every item it plays: the library, the suite, the target, the grader, the simulator."""

    library: Library
    suite: SuiteSpec
    adapter: TargetAdapter
    grader: Grader
    simulator: Simulator | None = None


@dataclass
class Played:
    """An item played through: the transcript, the last reply (latency, attempts and usage summed over every call),
    the tokens the budget is charged, and whatever the kind's grade needs (`state`)."""

    messages: list[dict[str, str]]
    reply: TargetReply
    tokens: int
    state: Any = None


class ItemKind(Protocol):
    """One kind of item. `name` is the suite `kind` that runs it."""

    name: str
    judge_questions: int  # judge calls one item costs per judge (0: a judge never sees it)
    uses_simulator: bool  # its items are played by a simulated user, so a suite of it needs a simulator
    # its item is a whole conversation, graded as one: the report's conversation sections read it (no scenario
    # facets), and a new last reply is graded as a transcript of that conversation
    conversation: bool
    document: (
        type[BaseModel] | None
    )  # what its report body must fit (app/documents); None: a shape unpublished

    def cells(self, library: Library, suite: SuiteSpec) -> Iterator[Cell]:
        """The suite's cells in a fixed order."""
        ...

    def cost(self, library: Library, spec: ItemSpec, suite: SuiteSpec | None, turn_cap: int) -> ItemCost:
        """Target calls and estimated tokens of one item, before it runs."""
        ...

    async def play(self, ctx: PlayContext, spec: ItemSpec) -> Played:
        """Plays one item against the target; raises only on a bug of ours (the item is then our_error)."""
        ...

    async def grade(self, ctx: PlayContext, played: Played) -> dict[str, Any]:
        """The row fields a played item sets (verdict, score, checks, ...); none for a failed call."""
        ...

    def report(self, items: Iterable[StoredItem], library: Library, *, with_slices: bool) -> dict[str, Any]:
        """The report body of a run of this kind's items (after its version header)."""
        ...
