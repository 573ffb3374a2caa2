"""What scripted and simulated conversations share as kinds: a conversation is played and graded whole, so its
grade is already on what was played, and a run of them is reported with the replies' report."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from app.conversations.item import ConversationOutcome
from app.documents.report import MatrixBody
from app.grading.judges.judge import outcomes_of
from app.kinds.base import PlayContext, Played
from app.kinds.single_reply import reply_report
from app.runner.budget import call_tokens

if TYPE_CHECKING:
    from app.benchmark.loader import Library
    from app.scoring.facets import StoredItem


def played_conversation(outcome: ConversationOutcome) -> Played:
    """A finished conversation as played: the budget is charged the calls' usage, or the transcript's estimate."""
    tokens = call_tokens(outcome.reply.usage, outcome.messages, None)
    return Played(outcome.messages, outcome.reply, tokens, outcome.graded)


class Conversation:
    """The grade and report of a conversation kind; a subclass plans, costs and plays it."""

    judge_questions: int
    uses_simulator: bool
    conversation = True
    document = MatrixBody  # a run of conversations reports as replies do, with its conversation sections

    async def grade(self, ctx: PlayContext, played: Played) -> dict[str, Any]:
        graded: dict[str, Any] = played.state
        return {**graded, "judge_outcomes": outcomes_of(graded.get("judge"))}

    def report(self, items: Iterable[StoredItem], library: Library, *, with_slices: bool) -> dict[str, Any]:
        return reply_report(items, library, with_slices=with_slices)
