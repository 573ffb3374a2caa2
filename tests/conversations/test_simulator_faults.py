"""A simulator's unusable turns are each caught and named from the text alone; an ordinary turn passes."""

from __future__ import annotations

import pytest

from app.conversations.simulator_faults import FAULTS, cap_words, clean_turn, turn_fault

HISTORY = [
    {"role": "user", "content": "I've been feeling really flat since the move and can't sleep"},
    {"role": "assistant", "content": "That sounds exhausting. What has the move changed for you day to day?"},
]


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("It sounds like you're going through a lot right now.", "role_inversion"),
        ("As an AI, I can't feel tired, but I can help you plan your week.", "role_inversion"),
        ("Assistant: how can I help you today?", "role_inversion"),
        ("<think>The persona card says she is guarded.</think> fine i guess", "leaked_reasoning"),
        ("(note to self: stay in character) it's whatever", "leaked_reasoning"),
        ("   ", "empty_turn"),
        ("That sounds exhausting. What has the move changed for you day to day?", "echoed_turn"),
        ("i've been feeling really flat since the move and can't sleep", "echoed_turn"),
    ],
)
def test_each_fault_is_caught_and_named(text: str, fault: str) -> None:
    found = turn_fault(text, HISTORY)
    assert found is not None and found[0] == fault and fault in FAULTS
    assert found[1]  # a reason a reader can follow


def test_an_ordinary_user_turn_is_usable() -> None:
    assert turn_fault("mostly i miss my friends, and work is loud", HISTORY) is None
    assert (
        turn_fault("ok", [*HISTORY, {"role": "user", "content": "ok"}]) is None
    )  # people repeat short turns


def test_echo_reason_says_whose_words_were_repeated() -> None:
    assistant = turn_fault(HISTORY[1]["content"], HISTORY)
    user = turn_fault(HISTORY[0]["content"], HISTORY)
    assert assistant is not None and "assistant" in assistant[1]
    assert user is not None and "user turn" in user[1]


def test_clean_turn_drops_speaker_tag_and_quotes_and_cap_cuts_at_a_word() -> None:
    assert clean_turn('  User: "not much, just tired"  ') == "not much, just tired"
    assert clean_turn("me: hey") == "hey"
    assert cap_words("one two three four five", 3) == "one two three"
    assert cap_words("short turn", 3) == "short turn"
