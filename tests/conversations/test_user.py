"""The user interface: what an Observation says about a reply, and how a user ends or faults a conversation."""

from __future__ import annotations

import dataclasses

import pytest

from app.benchmark.conversations import OBSERVATIONS
from app.conversations.user import ConversationUser, Observation, UserTurn


def test_an_observation_names_exactly_the_branches_a_script_can_take() -> None:
    assert tuple(Observation().to_dict()) == OBSERVATIONS


def test_nothing_is_true_only_when_the_reply_did_none_of_the_things() -> None:
    assert Observation().nothing
    for name in OBSERVATIONS:
        assert not Observation(**{name: True}).nothing


def test_an_observation_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Observation().escalated = True  # type: ignore[misc]


def test_a_user_turn_without_text_ends_and_a_fault_is_named() -> None:
    assert UserTurn(None).fault is None
    assert UserTurn(None, fault="role_inversion").fault == "role_inversion"


def test_anything_with_next_turn_is_a_conversation_user() -> None:
    class Quiet:
        async def next_turn(self, history: list[dict[str, str]], observed: Observation | None) -> UserTurn:
            return UserTurn(None)

    assert isinstance(Quiet(), ConversationUser)
    assert not isinstance(object(), ConversationUser)
