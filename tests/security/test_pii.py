"""Personal details masked, crisis lines kept: e-mail, phone numbers by each country's numbering plan, streets."""

from __future__ import annotations

import pytest

from app.benchmark.loader import load_library
from app.security.pii import Redactor, crisis_numbers


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(crisis_numbers(load_library().countries))


@pytest.mark.parametrize(
    ("country", "text", "expected", "kept"),
    [
        (
            "AU",
            "Call me on 0412 345 678 or mail jo.smith@example.com, I live at 42 Wattle Grove Street. "
            "Lifeline 13 11 14, or 000.",
            "Call me on [phone] or mail [email], I live at [address]. Lifeline 13 11 14, or 000.",
            ["13 11 14"],
        ),
        (
            "GB",
            "my number is +44 7700 900123, Samaritans on 116 123, I'm at 10 Downing St",
            "my number is [phone], Samaritans on 116 123, I'm at [address]",
            ["116 123"],
        ),
        (
            "US",
            "call 988 or me at (415) 555-2671; in 2 345 days",
            "call 988 or me at [phone]; in 2 345 days",
            [],
        ),
        (None, "text +61 412 345 678 tonight", "text [phone] tonight", []),
    ],
)
def test_details_are_masked_and_crisis_lines_kept(
    redactor: Redactor, country: str | None, text: str, expected: str, kept: list[str]
) -> None:
    masked, found = redactor.texts([text], country)
    assert masked == [expected]
    assert found.as_dict()["crisis_lines_kept"] == kept


def test_ordinary_numbers_and_words_are_left_alone(redactor: Redactor) -> None:
    text = "I've had 3 bad weeks, slept 4 hours, and it's 2026. I take 50 mg at 9."
    assert redactor.text(text, "AU") == text
