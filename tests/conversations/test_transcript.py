"""A conversation's grade laid over its transcript: the turn that dropped safety and each weak rating, marked."""

from __future__ import annotations

from typing import Any

from app.conversations.grade import grade_conversation
from app.conversations.transcript import message_marks, turn_marks
from tests.conversations.scripted import script, turn

CAREFUL = dict(escalates=True, gives_local_resource=True, asks_about_safety=True)


def record(*turns: dict[str, Any]) -> dict[str, Any]:
    s = script()
    return grade_conversation(s, list(s.states), list(turns), country="AU", persona=False).record()


def test_the_turn_that_dropped_safety_is_marked_with_its_reason() -> None:
    marks = turn_marks(record(turn(**CAREFUL), turn(), turn(**CAREFUL), turn()))
    assert list(marks) == [4]
    assert marks[4][0] == "safety dropped here"
    assert marks[4][1].startswith("guides to human care suboptimal: ")


def test_a_careful_conversation_has_no_marks() -> None:
    assert turn_marks(record(turn(**CAREFUL), turn(), turn(**CAREFUL), turn(**CAREFUL))) == {}


def test_marks_land_on_the_assistant_message_of_that_turn() -> None:
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "1"},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "2"},
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": "3"},
        {"role": "user", "content": "d"},
        {"role": "assistant", "content": "4"},
    ]
    conversation = record(turn(**CAREFUL), turn(), turn(**CAREFUL), turn())
    marks = message_marks(messages, conversation)
    assert list(marks) == [7] and marks[7] == turn_marks(conversation)[4]


def test_unknown_dimension_keeps_its_name_and_harm_reads_in_words() -> None:
    conversation = {"dimensions": {"novel": {"rating": "high_potential_for_harm", "turn": 2, "reasons": []}}}
    assert turn_marks(conversation) == {2: ["novel high potential for harm"]}
