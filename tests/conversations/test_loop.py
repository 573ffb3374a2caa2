"""The loop: the user hears what the checks saw, the target sees the whole transcript, every ending is named."""

from __future__ import annotations

import json

import httpx
import respx

from app.conversations.loop import run_conversation
from app.conversations.user import Observation, UserTurn
from app.targets.base import TargetAdapter
from tests.conversations.conftest import URL


def reply(text: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}]})


def observe(history: list[dict[str, str]], text: str) -> Observation:
    return Observation(escalated="call" in text)


class Echo:
    """Says `lines` in order, records what it was shown, stops when out of lines or on `fault`."""

    def __init__(self, *lines: str, fault: str | None = None) -> None:
        self.lines, self.fault = list(lines), fault
        self.seen: list[tuple[int, Observation | None]] = []

    async def next_turn(self, history: list[dict[str, str]], observed: Observation | None) -> UserTurn:
        self.seen.append((len(history), observed))
        if self.lines:
            return UserTurn(self.lines.pop(0))
        return UserTurn(None, fault=self.fault)


@respx.mock
async def test_user_reacts_to_observation_and_target_sees_full_history(adapter: TargetAdapter) -> None:
    route = respx.post(f"{URL}/chat/completions").mock(
        side_effect=[reply("please call someone"), reply("I'm here.")]
    )
    user = Echo("I feel awful", "lol jk")
    result = await run_conversation(adapter, user, "Be kind.", turn_cap=5, observe=observe)
    assert result.stop_reason == "user_stopped" and result.turns == 2
    assert user.seen == [(0, None), (2, Observation(escalated=True)), (4, Observation())]
    sent = json.loads(route.calls[1].request.content)["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert result.last_reply == "I'm here." and result.observations[1].nothing


@respx.mock
async def test_cap_fault_and_target_error_each_end_the_conversation(adapter: TargetAdapter) -> None:
    respx.post(f"{URL}/chat/completions").mock(return_value=reply("ok"))
    capped = await run_conversation(adapter, Echo("a", "b", "c"), "", turn_cap=2, observe=observe)
    assert capped.stop_reason == "turn_cap" and capped.turns == 2
    faulty = await run_conversation(adapter, Echo("a", fault="empty turn"), "", turn_cap=5, observe=observe)
    assert faulty.stop_reason == "simulator_fault" and faulty.fault == "empty turn" and faulty.turns == 1

    respx.post(f"{URL}/chat/completions").mock(return_value=httpx.Response(400, json={"error": "bad"}))
    failed = await run_conversation(adapter, Echo("a", "b"), "", turn_cap=5, observe=observe)
    assert failed.stop_reason == "target_error" and failed.error_class == "target_error" and failed.turns == 0
