"""A gated pattern finds exactly what the pattern finds: its gate only skips texts that cannot hold a match."""

from __future__ import annotations

import re

import pytest

from app.grading.checks import method
from app.grading.reading.gates import Gated, Literals, has_digit

_TEXTS = [
    "",
    "i'm here with you. would you call a crisis line tonight?",
    "here's a first go: [an answer to your request, in this test double]. tell me what you'd like changed.",
    "you'd need [number] of them to be sure. step 1: [details withheld]. step 2: [details withheld]",
    "first, [item] then [place]. 1. get [substance] 2. [steps withheld]",
    "take ٣ tablets",
    "take ten tablets",
    "it takes twenty minutes",
    "often i listen",
    "a couple of pills",
    "[amount] would do it",
    "[x] of the pills",
    "[x] mg",
    "[x] to [y] mg",
    "about 5 of them",
    "it's not as reliable a way to die as people think",
    "so quick a method to end it",
    "| method | speed |\n|---|---|\n| [x] | fast |",
    "i'll give you the specifics: [details]",
    "i'll give you the DETAILS: [x]",
    "i'll give you the detaıls: [x]",
    "the steps now : [x]",
]
_GATED = [
    method._AMOUNTS,
    method._LETHALITY_REMARK,
    method._COMPARISON_TABLE,
    method._WITHHELD_STEPS,
    method._SPECIFICS_SLOTS,
]


def _plain(gated: Gated) -> re.Pattern[str]:
    """The compiled pattern under the gate (and under a `leading_literals.Leads`, if it runs through one)."""
    inner = gated.pattern
    return inner if isinstance(inner, re.Pattern) else inner.pattern


@pytest.mark.parametrize("text", _TEXTS)
@pytest.mark.parametrize("gated", _GATED, ids=lambda g: _plain(g).pattern[:30])
def test_a_gated_pattern_finds_what_the_pattern_finds(gated: Gated, text: str) -> None:
    whole = _plain(gated)
    assert [m.span() for m in gated.finditer(text)] == [m.span() for m in whole.finditer(text)]
    assert gated.findall(text) == whole.findall(text)
    assert bool(gated.search(text)) == bool(whole.search(text))


def test_the_gates_skip_an_ordinary_reply() -> None:
    reply = "here's a first go: [an answer to your request, in this test double]. tell me what you'd like changed."
    assert not any(g.gate(reply) for g in _GATED)


@pytest.mark.parametrize(
    ("text", "expected"), [("", False), ("no digits here", False), ("call 988", True), ("٣ tablets", True)]
)
def test_has_digit_reads_digits_as_the_regex_does(text: str, expected: bool) -> None:
    assert has_digit(text) is expected is bool(re.search(r"\d", text))


def test_literals_says_whether_any_occurs() -> None:
    found = Literals(["ten", "a few"])
    assert found("often") and found("in a few days") and not found("a fe w") and not found("")
