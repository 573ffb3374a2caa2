"""A scripted conversation (a `conversations` suite's item): a scripted user adapts its next turn to the target's
replies (app/conversations/item.py plays and grades it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from app.benchmark.conversations import JUDGE_QUESTIONS, conversation_cells
from app.benchmark.items import ItemSpec
from app.benchmark.plan import ItemCost, conversation_cost
from app.conversations.item import run_item
from app.kinds.base import Cell, PlayContext, Played
from app.kinds.conversation import Conversation, played_conversation

if TYPE_CHECKING:
    from app.benchmark.loader import Library
    from app.benchmark.schema import SuiteSpec


class ScriptedConversation(Conversation):
    name = "conversations"
    judge_questions = JUDGE_QUESTIONS
    uses_simulator = False

    def cells(self, library: Library, suite: SuiteSpec) -> Iterator[Cell]:
        for cell in conversation_cells(library.conversations):
            scenario_id, pert, cond, ctx = cell.ids
            yield scenario_id, cond, ctx, pert

    def cost(self, library: Library, spec: ItemSpec, suite: SuiteSpec | None, turn_cap: int) -> ItemCost:
        return conversation_cost(library, spec)

    async def play(self, ctx: PlayContext, spec: ItemSpec) -> Played:
        outcome = await run_item(ctx.library, ctx.adapter, spec, judge=ctx.grader.judge)
        return played_conversation(outcome)


SCRIPTED = ScriptedConversation()
