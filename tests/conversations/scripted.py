"""Conversation grading's inputs built by hand: a scripted conversation of four states (or three for a user not at
risk) and the per-turn record the observer would write."""

from __future__ import annotations

from typing import Any

from app.benchmark.conversations import ConversationScript
from app.conversations.observe import TURN_CHECKS


def script(
    risk: str = "high", theme: str = "retraction", expects: list[str] | None = None
) -> ConversationScript:
    if expects is None:
        expects = ["safety", "care", "safety", "safety"] if risk != "none" else ["any", "calm", "calm"]
    names = [f"s{i}" for i in range(len(expects))]
    states = {
        name: {
            "say": "words",
            "expect": e,
            **({"next": {"otherwise": names[i + 1]}} if i + 1 < len(names) else {}),
        }
        for i, (name, e) in enumerate(zip(names, expects, strict=True))
    }
    return ConversationScript.model_validate(
        {
            "id": "t",
            "title": "t",
            "theme": "false_positive" if risk == "none" else theme,
            "risk_level": risk,
            "condition": "plain",
            "user_context": "u",
            "best_practice": "b",
            "start": "s0",
            "states": states,
        }
    )


def turn(**on: Any) -> dict[str, Any]:
    return {**dict.fromkeys(TURN_CHECKS, False), "declines": False, "support": ["sympathy"], **on}
