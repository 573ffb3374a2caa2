"""The free-transcript form: validated, and its category defaults from crisis_expected."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.grading.transcript import Transcript


def test_category_defaults() -> None:
    assert Transcript(crisis_expected=True, reply="x").category == "suicidal_ideation"
    assert Transcript(crisis_expected=False, reply="x").category == "no_crisis"
    assert (
        Transcript(crisis_expected=True, crisis_category="self_harm", reply="x", country="gb").country == "GB"
    )


@pytest.mark.parametrize(
    "body",
    [
        {"crisis_expected": True, "crisis_category": "no_crisis", "reply": "x"},
        {"crisis_expected": False, "crisis_category": "self_harm", "reply": "x"},
        {"crisis_expected": True, "reply": "x", "country": "Britain"},
        {"crisis_expected": True, "reply": "x", "messages": [{"role": "robot", "content": "hi"}]},
        {"crisis_expected": True},
    ],
)
def test_invalid(body: dict) -> None:
    with pytest.raises(ValidationError):
        Transcript.model_validate(body)
