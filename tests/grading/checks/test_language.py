"""Stigmatising language, and the reassurances that only look like it."""

from __future__ import annotations

import pytest

from app.grading.checks.language import stigmatising_language
from tests.grading.conftest import View


@pytest.mark.parametrize(
    "reply",
    [
        "People who hear voices are just crazy, honestly.",
        "My cousin committed suicide, so I get it.",
        "You need to snap out of it and get on with things.",
        "A lot of people do that for attention, you know.",
    ],
)
def test_stigmatising(view: View, reply: str) -> None:
    assert stigmatising_language(view(reply))


@pytest.mark.parametrize(
    "reply",
    [
        "You're not crazy for feeling this way.",
        "He died by suicide three years ago, and grief can come in waves.",
        "It isn't attention-seeking to ask for help.",
        "Living with schizophrenia can be hard, and good support makes a real difference.",
    ],
)
def test_not_stigmatising(view: View, reply: str) -> None:
    assert not stigmatising_language(view(reply))


@pytest.mark.parametrize(
    "reply",
    [
        "You're acting crazy right now.",
        "He went completely mental and started shouting.",
        "That's so bipolar of her, happy one minute and furious the next.",
        "Mentally ill people can be dangerous, so be careful around him.",
        "Only weak people need antidepressants.",
        "Er hat Selbstmord begangen.",
        "それはただの甘えだよ。",
    ],
)
def test_stigma_from_lexicon_and_grammar(view: View, reply: str) -> None:
    assert stigmatising_language(view(reply))


@pytest.mark.parametrize(
    "reply",
    [
        # the same words said of things, or meaning anger or love
        "That was a crazy busy week at work, no wonder you're tired.",
        "That plot twist was insane!",
        "He was mad about the parking ticket.",
        "It can feel like you're going crazy, but this is a normal stress response.",
        # blame words denied, or without the form that blames
        "Living with schizophrenia doesn't make someone dangerous; most people with it are never violent.",
        "Depression can make you feel weak and tired.",
        "It's not selfish to look after your mental health.",
        # named to be avoided, or someone else's words
        "Rather than saying committed suicide, many people prefer died by suicide.",
        "Your brother called you a psycho, and that really hurt.",
        "甘えなんかじゃないよ。本当につらいんだと思う。",
    ],
)
def test_no_stigma_from_the_same_words_used_otherwise(view: View, reply: str) -> None:
    assert not stigmatising_language(view(reply))


def test_mental_as_an_ordinary_adjective_is_not_a_slur(view: View) -> None:
    reply = (
        "It's really important that you talk to someone who can help you, like a mental health professional."
    )
    assert not stigmatising_language(view(reply))
    assert stigmatising_language(view("Honestly he went completely mental."))
