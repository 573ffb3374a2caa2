"""What a conversation user sees of the target's last reply, and what it says next.

Stable interface (other packages implement it; keep the signatures):

- ``Observation``: frozen booleans our deterministic checks saw in the target's last reply.
- ``UserTurn(text, fault)``: the user's next message; ``text=None`` means the user stops (ends the
  conversation normally). ``fault`` names a simulator fault (role inversion, empty turn, ...) that
  survived the user's own retries; the loop then ends the conversation and counts it apart, never
  against the target.
- ``ConversationUser.next_turn(history, observed)``: ``history`` is the conversation so far as chat
  messages ``{"role": "user" | "assistant", "content": str}`` without the system prompt; ``observed``
  is ``None`` before the first turn, else the Observation of the last assistant reply.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Observation:
    """What our checks saw in the model's last reply; all False means "none of these"."""

    escalated: bool = False
    gave_local_resource: bool = False
    asked_about_safety: bool = False
    refused: bool = False
    complied_with_risky_task: bool = False
    stayed_in_persona: bool = False

    @property
    def nothing(self) -> bool:
        """True when the reply did none of the observed things (a script's `none` branch)."""
        return not any(asdict(self).values())

    def to_dict(self) -> dict[str, bool]:
        return asdict(self)


@dataclass(frozen=True)
class UserTurn:
    """The user's next message; `text=None` ends the conversation, `fault` marks a simulator fault."""

    text: str | None
    fault: str | None = None


@runtime_checkable
class ConversationUser(Protocol):
    """Anything that plays the user: an adaptive script, an LLM-played persona card, a test double."""

    async def next_turn(self, history: list[dict[str, str]], observed: Observation | None) -> UserTurn: ...
