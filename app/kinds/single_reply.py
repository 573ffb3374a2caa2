"""A single-reply item (a `matrix` suite's): the user's turns sent one by one, the last reply graded by the rules
and the judges configured for the run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from app.benchmark.items import ItemSpec, ResolvedItem, qualified, resolve, scenario_cells
from app.benchmark.plan import ItemCost, reply_cost
from app.documents.report import MatrixBody
from app.grading.judges.judge import outcomes_of
from app.kinds.base import Cell, PlayContext, Played
from app.runner.budget import call_tokens
from app.targets.base import TargetAdapter, TargetReply

if TYPE_CHECKING:
    from app.benchmark.loader import Library
    from app.benchmark.schema import SuiteSpec
    from app.grading.grader import Grader
    from app.scoring.facets import StoredItem


async def converse(adapter: TargetAdapter, item: ResolvedItem) -> tuple[list[dict[str, str]], TargetReply]:
    """Send the user's turns one by one with the target's own earlier replies; stop at the first error. A bare
    item (empty system prompt) sends no system message at all."""
    messages = [{"role": "system", "content": item.system_prompt}] if item.system_prompt else []
    reply = TargetReply(text=None, latency_ms=0.0, attempts=0)
    latency, attempts, tokens = 0.0, 0, 0
    for turn in item.perturbation.user_turns:
        messages.append({"role": "user", "content": turn})
        reply = await adapter.complete(list(messages))
        latency += reply.latency_ms
        attempts += reply.attempts
        tokens += call_tokens(reply.usage, messages, reply.text)
        if not reply.ok:
            break
        messages.append({"role": "assistant", "content": reply.text or ""})
    reply.latency_ms, reply.attempts, reply.tokens = latency, attempts, tokens
    return messages, reply


async def graded_reply(
    grader: Grader, item: ResolvedItem, messages: list[dict[str, str]], reply: TargetReply
) -> dict[str, Any]:
    """The grade's row fields; none for a failed call (it has nothing to grade)."""
    if not reply.ok or reply.text is None:
        return {}
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    grade = await grader.grade(item, replies)
    return {
        "verdict": grade.verdict,
        "score": grade.score,
        "checks": grade.checks,
        "reasons": grade.reasons,
        "judge": grade.judge,
        "rules_score": grade.rules.score if grade.rules else None,
        "likert": grade.rules_record,
        "panel_scores": grade.panel_scores,
        "judge_outcomes": outcomes_of(grade.judge),
    }


def reply_report(items: Iterable[StoredItem], library: Library, *, with_slices: bool) -> dict[str, Any]:
    """The report of graded replies, scripted and simulated conversations among them."""
    # Imported here: the report needs NumPy and SciPy's special functions; only a process that reports pays them.
    from app.scoring.report import reply_report as build

    return build(items, library, with_slices=with_slices)


class SingleReply:
    name = "matrix"
    judge_questions = 1
    uses_simulator = False
    conversation = False
    document = MatrixBody

    def cells(self, library: Library, suite: SuiteSpec) -> Iterator[Cell]:
        for scenario_id in sorted(library.scenarios):
            for c, u, pt in scenario_cells(
                library.scenarios[scenario_id], suite, library.conditions, library.user_contexts
            ):
                yield qualified(scenario_id, c, u, pt)

    def cost(self, library: Library, spec: ItemSpec, suite: SuiteSpec | None, turn_cap: int) -> ItemCost:
        return reply_cost(library, spec)

    async def play(self, ctx: PlayContext, spec: ItemSpec) -> Played:
        item = resolve(ctx.library, spec)
        messages, reply = await converse(ctx.adapter, item)
        return Played(messages, reply, reply.tokens or call_tokens(reply.usage, messages, reply.text), item)

    async def grade(self, ctx: PlayContext, played: Played) -> dict[str, Any]:
        return await graded_reply(ctx.grader, played.state, played.messages, played.reply)

    def report(self, items: Iterable[StoredItem], library: Library, *, with_slices: bool) -> dict[str, Any]:
        return reply_report(items, library, with_slices=with_slices)


SINGLE_REPLY = SingleReply()
