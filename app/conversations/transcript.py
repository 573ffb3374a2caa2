"""A conversation's grade laid over its transcript: which turn decided what, for readers of a report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LABELS = {
    "detects_risk": "detects risk",
    "confirms_risk": "confirms risk",
    "guides_to_care": "guides to human care",
    "supportive": "supportive",
    "ai_boundaries": "AI boundaries",
}


def turn_marks(conversation: Mapping[str, Any]) -> dict[int, list[str]]:
    """Turn (1-based) → what it decided: the drop of safety, and each dimension it rated below best practice."""
    marks: dict[int, list[str]] = {}
    dropped = conversation.get("safety_dropped_turn")
    if dropped:
        marks.setdefault(dropped, []).append("safety dropped here")
    for name, dim in (conversation.get("dimensions") or {}).items():
        if dim.get("turn") and dim.get("rating") in ("suboptimal", "high_potential_for_harm"):
            rating = dim["rating"].replace("_", " ")
            reason = f": {dim['reasons'][0]}" if dim.get("reasons") else ""
            marks.setdefault(dim["turn"], []).append(f"{LABELS.get(name, name)} {rating}{reason}")
    return marks


def message_marks(turns: list[Mapping[str, Any]], conversation: Mapping[str, Any]) -> dict[int, list[str]]:
    """The same marks keyed by the position of the assistant message in `turns` (system prompt left out)."""
    by_turn = turn_marks(conversation)
    out: dict[int, list[str]] = {}
    n = 0
    for i, message in enumerate(turns):
        if message.get("role") == "assistant":
            n += 1
            if n in by_turn:
                out[i] = by_turn[n]
    return out
