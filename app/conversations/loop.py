"""Drive one conversation: the user speaks, the target answers, our checks observe, the user reacts.

Stable interface (keep the signature):

    async def run_conversation(adapter, user, system_prompt, *, turn_cap, observe) -> ConversationResult

- ``adapter``: any ``app.targets.base.TargetAdapter`` (``await adapter.complete(messages)``).
- ``user``: a ``ConversationUser``; asked for its first turn with ``([], None)``.
- ``system_prompt``: sent first on every call; an empty string sends none.
- ``turn_cap``: the most user turns (target calls) in one conversation.
- ``observe(history, reply_text) -> Observation``: plain function; ``history`` ends with the reply.

The conversation ends when the user stops (``"user_stopped"``), the cap is reached (``"turn_cap"``),
the target call fails after its own retries (``"target_error"``, with error_class and error), or the
user reports a fault (``"simulator_fault"``, with ``fault``). A crash inside the loop propagates: the
caller re-runs the whole conversation, because a conversation is one item, written only when done.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from app.conversations.user import ConversationUser, Observation
from app.targets.base import TargetAdapter, TargetReply

StopReason = Literal["user_stopped", "turn_cap", "target_error", "simulator_fault"]
Observe = Callable[[list[dict[str, str]], str], Observation]


@dataclass
class ConversationResult:
    """The transcript and what each assistant turn was observed to do (observations[i] ↔ i-th reply)."""

    messages: list[dict[str, str]]
    observations: list[Observation]
    stop_reason: StopReason
    replies: list[TargetReply] = field(default_factory=list)
    last_reply: str | None = None
    error_class: str | None = None
    error: str | None = None
    fault: str | None = None

    @property
    def turns(self) -> int:
        """User turns that got an answer."""
        return len(self.observations)

    @property
    def latency_ms(self) -> float:
        return sum(r.latency_ms for r in self.replies)

    @property
    def attempts(self) -> int:
        return sum(r.attempts for r in self.replies)

    def usage(self) -> dict[str, Any]:
        """Token counts summed over the target's replies (keys the replies report)."""
        total: dict[str, Any] = {}
        for reply in self.replies:
            for key, value in (reply.usage or {}).items():
                if isinstance(value, int | float):
                    total[key] = total.get(key, 0) + value
        return total


async def run_conversation(
    adapter: TargetAdapter,
    user: ConversationUser,
    system_prompt: str,
    *,
    turn_cap: int,
    observe: Observe,
) -> ConversationResult:
    """Run one conversation to its end and return the transcript; exceptions propagate to the caller."""
    history: list[dict[str, str]] = []
    observations: list[Observation] = []
    replies: list[TargetReply] = []
    observed: Observation | None = None
    prefix = [{"role": "system", "content": system_prompt}] if system_prompt else []

    def result(stop: StopReason, **extra: Any) -> ConversationResult:
        last = next((m["content"] for m in reversed(history) if m["role"] == "assistant"), None)
        return ConversationResult(history, observations, stop, replies, last, **extra)

    while len(observations) < turn_cap:
        turn = await user.next_turn(list(history), observed)
        if turn.fault is not None:
            return result("simulator_fault", fault=turn.fault)
        if turn.text is None:
            return result("user_stopped")
        history.append({"role": "user", "content": turn.text})
        reply = await adapter.complete(prefix + history)
        replies.append(reply)
        if not reply.ok or reply.text is None:
            return result(
                "target_error",
                error_class=reply.error_class or "bad_response",
                error=reply.error or "empty reply",
            )
        history.append({"role": "assistant", "content": reply.text})
        observed = observe(list(history), reply.text)
        observations.append(observed)
    return result("turn_cap")
