"""Stigmatising language, and the reassurances that only look like it."""

from __future__ import annotations

import pytest

from app.grading.language import stigmatising_language
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
