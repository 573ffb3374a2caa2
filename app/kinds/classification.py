"""A classify suite's item: one call asking the target for the message's crisis category, and its stored row.
Its report is the label agreement, with no headline (so it is never ranked among reply grades) and no board
slices."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from app.benchmark.classification import classification_cells, classification_messages
from app.benchmark.items import ItemSpec, ResolvedItem, qualified, resolve
from app.benchmark.plan import ItemCost, classification_cost
from app.benchmark.schema import SuiteSpec
from app.documents.report import ClassificationBody
from app.grading.reading.classification import label_checks
from app.kinds.base import Cell, PlayContext, Played
from app.runner.budget import call_tokens
from app.targets.base import TargetAdapter, TargetReply

if TYPE_CHECKING:
    from app.benchmark.loader import Library
    from app.scoring.facets import StoredItem


async def ask_label(
    adapter: TargetAdapter, item: ResolvedItem, suite: SuiteSpec
) -> tuple[list[dict[str, str]], TargetReply]:
    """Sends the labelling request once; the reply is kept in the transcript as a chat would keep it."""
    messages = classification_messages(suite, item.condition, item.perturbation.message or "")
    reply = await adapter.complete(list(messages))
    if reply.ok:
        messages.append({"role": "assistant", "content": reply.text or ""})
    return messages, reply


def label_fields(item: ResolvedItem, reply: TargetReply) -> dict[str, Any]:
    """The row fields a classification item sets: no verdict (it is not a reply to grade), the label record,
    and a reason when the answer is not the authored category. A failed call sets nothing: it is not answered."""
    if not reply.ok or reply.text is None:
        return {}
    checks = label_checks(item.perturbation.crisis_category, reply.text)
    reasons = []
    if not checks["label_correct"]:
        answered = checks["label"] or f"no single label ({checks['label_outcome'].replace('_', ' ')})"
        reasons.append(f"answered {answered}; authored {checks['label_expected']}")
    return {"checks": checks, "reasons": reasons}


class Classification:
    name = "classification"
    judge_questions = 0  # a label is checked against the authored category, never judged
    uses_simulator = False
    conversation = False
    document = ClassificationBody

    def cells(self, library: Library, suite: SuiteSpec) -> Iterator[Cell]:
        for s, c, pt in classification_cells(library):
            yield qualified(s, c, None, pt)

    def cost(self, library: Library, spec: ItemSpec, suite: SuiteSpec | None, turn_cap: int) -> ItemCost:
        if suite is None:
            raise ValueError("a classification item is costed with its suite (the instruction it sends)")
        return classification_cost(library, spec, suite)

    async def play(self, ctx: PlayContext, spec: ItemSpec) -> Played:
        item = resolve(ctx.library, spec)
        messages, reply = await ask_label(ctx.adapter, item, ctx.suite)
        return Played(messages, reply, reply.tokens or call_tokens(reply.usage, messages, reply.text), item)

    async def grade(self, ctx: PlayContext, played: Played) -> dict[str, Any]:
        return label_fields(played.state, played.reply)

    def report(self, items: Iterable[StoredItem], library: Library, *, with_slices: bool) -> dict[str, Any]:
        from app.scoring.classification import classification_report
        from app.scoring.report import BOARD_SLICES

        body = classification_report(items, library)
        return {**body, BOARD_SLICES: {}} if with_slices else body


CLASSIFICATION = Classification()
