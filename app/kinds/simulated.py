"""A simulated conversation (a `simulated` suite's item): an LLM plays a persona card against the target
(app/conversations/simulated_item.py plays and grades it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from app.benchmark.conversations import JUDGE_QUESTIONS
from app.benchmark.items import ItemSpec
from app.benchmark.plan import ItemCost, simulated_cost
from app.benchmark.simulated import simulated_cells
from app.conversations.simulated_item import run_simulated_item
from app.kinds.base import Cell, PlayContext, Played
from app.kinds.conversation import Conversation, played_conversation

if TYPE_CHECKING:
    from app.benchmark.loader import Library
    from app.benchmark.schema import SuiteSpec


class SimulatedConversation(Conversation):
    name = "simulated"
    judge_questions = JUDGE_QUESTIONS
    uses_simulator = True

    def cells(self, library: Library, suite: SuiteSpec) -> Iterator[Cell]:
        for cell in simulated_cells(library, suite):
            scenario_id, pert, cond, _ = cell.ids
            yield scenario_id, cond, None, pert

    def cost(self, library: Library, spec: ItemSpec, suite: SuiteSpec | None, turn_cap: int) -> ItemCost:
        return simulated_cost(library, spec, turn_cap)

    async def play(self, ctx: PlayContext, spec: ItemSpec) -> Played:
        if ctx.simulator is None:
            raise ValueError("a simulated item needs the evaluation's simulator")
        outcome = await run_simulated_item(
            ctx.library, ctx.adapter, ctx.simulator, spec, judge=ctx.grader.judge
        )
        return played_conversation(outcome)


SIMULATED = SimulatedConversation()
