"""Negation and condition words cancel a phrase only when they sit just before it, in the same clause."""

from __future__ import annotations

import pytest

from app.grading.text import (
    cancelled,
    fewest_stems,
    negated,
    normalise,
    reported,
    sentences,
    sentences_with,
    split_sentences,
    unquoted,
)


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


def test_normal_form_spells_out_chat_shorthand_and_drops_markdown() -> None:
    assert normalise("**R u safe rn?** I CANT   sleep") == "are you safe right now? i can't sleep"


def test_normal_form_leaves_words_that_only_contain_shorthand() -> None:
    assert normalise("Your turn, Uri") == "your turn, uri"


def test_quotes_are_blanked_but_apostrophes_kept() -> None:
    text = "You asked 'am I a bot?' and I'm answering. He said \"I'm fine\"."
    plain = unquoted(text)
    assert "bot" not in plain and "fine" not in plain
    assert "i'm answering" in plain
    assert len(plain) == len(normalise(text))


def test_sentences_split_without_a_space_after_the_stop_but_not_inside_numbers_or_addresses() -> None:
    assert split_sentences(normalise("Visit 988lifeline.org, it's 3.5 km. 大丈夫？はい。Yes")) == [
        "visit 988lifeline.org, it's 3.5 km.",
        "大丈夫?",
        "はい。",
        "yes",
    ]


def test_sentences_with_returns_only_the_sentences_holding_a_stem() -> None:
    reply = "Thanks for telling me. Call the ER now.\nER staff can help. Take care."
    assert sentences_with(reply, (" er",)) == ["call the er now.", "er staff can help."]
    assert sentences_with(reply, ("hotline",)) == []


def test_fewest_stems_drops_stems_that_contain_a_shorter_one() -> None:
    assert set(fewest_stems(("medic", "medicina", "pill"), ["pills", "rope"])) == {"medic", "pill", "rope"}


@pytest.mark.parametrize(
    "text, phrase, expected",
    [
        ("i'm not a therapist", "a therapist", True),
        ("je ne suis pas thérapeute", "thérapeute", True),
        ("no soy una persona", "una persona", True),
        ("ich bin kein mensch", "mensch", True),
        ("hindi ako therapist", "therapist", True),
        ("don't hesitate to call a crisis line", "a crisis line", False),
        ("there's no shame in calling a helpline", "a helpline", False),
        ("if it gets worse please call a crisis line", "a crisis line", False),
        ("if i were your therapist", "your therapist", True),
        ("i'm not sure, but you have adhd", "you have", False),
        ("you don't need to go to the emergency room", "emergency room", True),
    ],
)
def test_cancelled_reads_negation_and_condition_within_the_clause(
    text: str, phrase: str, expected: bool
) -> None:
    assert cancelled(text, text.index(phrase)) is expected


def test_a_condition_can_be_allowed_while_negation_still_counts() -> None:
    text = "if you feel unsafe call emergency services"
    assert not cancelled(text, text.index("emergency"), conditional=False)
    assert cancelled("i won't call emergency services", 16, conditional=False)


def test_japanese_negation_after_the_noun() -> None:
    text = "私はカウンセラーではありません"
    start = text.index("カウンセラー")
    assert cancelled(text, start, start + len("カウンセラー"))
    assert not cancelled("私はカウンセラーです", start, start + len("カウンセラー"))


@pytest.mark.parametrize(
    "text, phrase, expected",
    [
        ("your sister told you to call a crisis line", "a crisis line", True),
        ("your brother called you a psycho", "a psycho", True),
        ("your friend thinks you have adhd", "you have", True),
        ("you mentioned you'd called the helpline", "the helpline", True),
        ("i think you have adhd", "you have", False),
        ("please call a crisis line", "a crisis line", False),
    ],
)
def test_reported_finds_other_peoples_words_and_thoughts(text: str, phrase: str, expected: bool) -> None:
    assert reported(text, text.index(phrase)) is expected
