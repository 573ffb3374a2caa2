"""A classify suite's item: one call asking the target for the message's crisis category, and its stored row."""

from __future__ import annotations

from typing import Any

from app.benchmark.classification import classification_messages
from app.benchmark.items import ResolvedItem
from app.benchmark.schema import SuiteSpec
from app.grading.reading.classification import label_checks
from app.targets.base import TargetAdapter, TargetReply


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
