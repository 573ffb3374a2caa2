"""Personal names masked where they are written as names; ordinary words, sentence openings, crisis services and
countries kept."""

from __future__ import annotations

import pytest

from app.benchmark.loader import load_library
from app.security.names import NameFinder
from app.security.pii import Redaction, Redactor, crisis_numbers, grade_words


@pytest.fixture(scope="module")
def finder() -> NameFinder:
    return NameFinder.load(grade_words(load_library().countries))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My name is Sarah and I feel alone.", "My name is [name] and I feel alone."),
        ("my brother John Smith shouted at me", "my brother [name] shouted at me"),
        ("John left me last night.", "[name] left me last night."),
        ("Sarah Jones said I should talk to you.", "[name] said I should talk to you."),
        ("I saw Dr. Patel and Mrs Jones today.", "I saw Dr. [name] and Mrs [name] today."),
        ("Please, Jessica, listen.", "Please, [name], listen."),
        ("I borrowed Emily's coat.", "I borrowed [name]'s coat."),
    ],
)
def test_names_written_as_names_are_masked(finder: NameFinder, text: str, expected: str) -> None:
    assert finder.mask(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "Will you stay with me? I hope so.",  # given names that are mostly words
        "I still have Hope and Faith, and walked Miles today.",
        "Sue them, my friend said.",  # at a sentence's start only names that are hardly ever words go
        "I rang the Samaritans, then The Trevor Project.",  # a crisis service's name the grade looks for
        "We moved from Kenya to France in April. God help me.",  # countries, months, faith
        "A group called Q Christian Fellowship in North America, maybe on Thu",
        "Hi Ms. Last Name,",  # after a title only surnames that are not mostly words
        "my friend emily is worried",  # lower case: missed, as the README says
        "I CANT TALK TO JOHN",  # all capitals: missed too
        "Young and Long are words here",  # surnames alone are never taken
    ],
)
def test_ordinary_words_and_the_words_a_grade_needs_are_kept(finder: NameFinder, text: str) -> None:
    assert finder.mask(text) == (text, 0)


def test_the_redactor_masks_names_last_and_counts_them(finder: NameFinder) -> None:
    redactor = Redactor(crisis_numbers(load_library().countries), finder)
    found = Redaction()
    text = redactor.text("I'm Grace, 42 Wattle Grove Street, ring Lifeline 13 11 14", "AU", found)
    assert text == "I'm [name], [address], ring Lifeline 13 11 14"  # the street's name went with the address
    assert found.as_dict()["removed"] == {"email": 0, "phone": 0, "address": 1, "name": 1}
    assert Redactor(redactor.keep).text("I'm Grace", "AU") == "I'm Grace"  # without a finder, names stay
