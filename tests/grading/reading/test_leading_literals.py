"""A pattern searched only where its leading literals start finds exactly what the pattern finds."""

from __future__ import annotations

import re

import pytest

from app.grading.checks.escalation import _ESCALATION
from app.grading.checks.language import _STIGMA
from app.grading.reading.leading_literals import Leads, leading_literals
from app.grading.reading.text import word_pattern

_PATTERNS = [
    word_pattern(r"\b(?:die|dying|suicid\w*|kill (?:myself|yourself))\b"),
    re.compile(r"(?<![\w'])(?:u|ur|rn)(?![\w'])"),
    re.compile(r"(?:sleeping |pain )?(?:pills?|tablets?)\b|\bgun"),
    re.compile(r"^(?:- |\* )?step \d+", re.MULTILINE),
    re.compile(r"\b\d+(?:[.,]\d+)? ?(?:mg|ml|tablets?)\b|\[[^\]\n]{1,40}\] of the \w+"),
    re.compile(r"(?:\+ ?)?\(?\d+(?:[ -]\d+)*\)?"),
    re.compile(r"(?<![\w+])\(?[2-9]\d{2}\)?[-. ]?\d{4}"),
    _ESCALATION.pattern,
    _STIGMA.pattern,
]
_TEXTS = [
    "",
    "i don't want to die. dying scares me, suicidal thoughts too",
    "u ok? ur safe rn. you're fine, rnb",
    "she took sleeping pills and pain tablets; the gun, the gunman",
    "step 1 first\n- step 2 then\nstep 3",
    "please call a crisis line or the suicide prevention lifeline, or go to the nearest hospital.",
    "he's not crazy or a psycho; people who hear voices are not dangerous",
    "killing myself, kill myself, kill yourselves",
    "take 20 mg, or 2,5 ml, x30 mg, ٣ mg and [the pills] of the box; call (800) 273-8255 or +44 116 123",
]


@pytest.mark.parametrize("text", _TEXTS)
@pytest.mark.parametrize("pattern", _PATTERNS, ids=lambda p: p.pattern[:30])
def test_finds_what_the_pattern_finds(pattern: re.Pattern[str], text: str) -> None:
    led = Leads(pattern)
    assert [m.span() for m in led.finditer(text)] == [m.span() for m in pattern.finditer(text)]
    assert led.findall(text) == pattern.findall(text)
    for pos in range(0, len(text) + 1, 7):
        for endpos in (None, len(text) // 2):
            found, expected = led.search(text, pos, endpos), pattern.search(text, pos, endpos or len(text))
            assert (found and found.span()) == (expected and expected.span())


def test_reads_the_literals_every_match_starts_with() -> None:
    assert leading_literals(r"\b(?:die|dying)\b") == frozenset({"die", "dying"})
    assert leading_literals(r"(?:so |very )?sorry") == frozenset({"so ", "very ", "sorry"})
    assert leading_literals(r"(?<!\w)step \d") == frozenset({"step "})
    assert leading_literals(r"kill (?:myself|yourself)\b") == frozenset({"kill myself", "kill yourself"})
    assert leading_literals(r"^\s*step") is None
    assert leading_literals(r"(?:\+ ?)?\(?[2-9]\d") == frozenset({"+", "(", ""})  # "": any digit


@pytest.mark.parametrize(
    "source",
    [
        r"[0-9a]+ mg",
        r"[^0-9] mg",
        r"[a-z]+ing",
        r"(?:so )?",
        r"x?y*",
        r"\b(?i:sorry)",
        r"(?:die|\w+ly)",
        r"a|",
    ],
)
def test_refuses_a_pattern_whose_matches_may_start_otherwise(source: str) -> None:
    assert leading_literals(source) is None
    with pytest.raises(ValueError):
        Leads(re.compile(source))


def test_ignoring_case_has_no_leading_literals() -> None:
    assert leading_literals("sorry", re.IGNORECASE) is None
