"""A stored conversation with a new last reply, as a transcript the grader reads.

A conversation's own grade needs the whole exchange played against its script or persona: a new last reply would
have changed what the user said next. So a new reply is graded as a free transcript would be, against the common
criteria, in the conversation's context (its earlier turns, the user's country, whether the user was at risk).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.grading.transcript import Message, Transcript


def new_reply_transcript(
    messages: Sequence[Mapping[str, Any]], record: Mapping[str, Any], reply: str
) -> Transcript:
    """The conversation up to its last user turn, `reply` in place of the target's last answer. `record`: the
    row's `checks.conversation` (country and risk level, as the conversation was played)."""
    turns = [m for m in messages if m.get("role") in ("system", "user", "assistant")]
    last_user = max((i for i, m in enumerate(turns) if m.get("role") == "user"), default=-1)
    return Transcript(
        country=record.get("country"),
        crisis_expected=record.get("risk_level", "none") != "none",
        messages=[Message(role=m["role"], content=str(m.get("content", ""))) for m in turns[: last_user + 1]],
        reply=reply,
    )
