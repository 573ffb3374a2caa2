"""Negation and condition words cancel a phrase only when they sit just before it, in the same clause."""

from __future__ import annotations

import pytest

from app.grading.text import negated, sentences


@pytest.mark.parametrize(
    "text, cancelled",
    [
        ("I do not think you have ADHD", True),
        ("Ask your GP whether you have ADHD", True),
        ("That does not mean you have ADHD", True),
        ("It sounds like you have ADHD", False),
        ("I am not sure, but you have ADHD", False),
    ],
)
def test_negated(text: str, cancelled: bool) -> None:
    assert negated(text, text.index("you have")) is cancelled


def test_sentences_split_on_ends_and_lines() -> None:
    assert sentences("Are you safe? I hope so.\nCall 116 123.") == [
        "Are you safe?",
        "I hope so.",
        "Call 116 123.",
    ]
