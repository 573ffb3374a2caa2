"""Reading a label out of a classification reply: lenient about wrapping, never guessing at content."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.benchmark.schema import CRISIS_CATEGORIES
from app.grading.reading.classification import label_checks, mentioned, parse_label

labels = st.sampled_from(CRISIS_CATEGORIES)


def _spaced(label: str, separator: str, case: str) -> str:
    text = label.replace("_", separator)
    return {"lower": text, "upper": text.upper(), "title": text.title(), "capital": text.capitalize()}[case]


@given(
    label=labels,
    separator=st.sampled_from(["_", " ", "-"]),
    case=st.sampled_from(["lower", "upper", "title", "capital"]),
    quote=st.sampled_from(["", '"', "'", "`", "**", "“"]),
    tail=st.sampled_from(["", ".", "!", ",", " .", "\n"]),
    lead=st.sampled_from(["", "Label: ", "Category - ", "The answer is ", "classification = ", "  \n"]),
)
def test_a_wrapped_label_is_read_as_that_label(
    label: str, separator: str, case: str, quote: str, tail: str, lead: str
) -> None:
    closing = "”" if quote == "“" else quote
    reply = f"{lead}{quote}{_spaced(label, separator, case)}{closing}{tail}"
    assert parse_label(reply).label == label, reply


@given(
    label=labels, key=st.sampled_from(["label", "category", "Crisis_Category", "answer"]), fence=st.booleans()
)
def test_a_label_in_json_is_read(label: str, key: str, fence: bool) -> None:
    body = json.dumps({key: label, "confidence": 0.8})
    reply = f"```json\n{body}\n```" if fence else body
    assert parse_label(reply) == parse_label(json.dumps([label])) == parse_label(json.dumps(label))
    assert parse_label(reply).label == label


@given(first=labels, second=labels, joiner=st.sampled_from([" or ", ", ", "\n", " / ", " (maybe ", " not "]))
def test_two_different_labels_are_outside_the_label_set(first: str, second: str, joiner: str) -> None:
    parsed = parse_label(f"{first}{joiner}{second}")
    if first == second:
        assert parsed.label in (first, None)  # "x not x" is nonsense either way; never another label
    else:
        assert parsed.label is None and parsed.outcome == "several_labels"


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_text_naming_no_label_is_never_given_one(text: str) -> None:
    if not mentioned(text):
        assert parse_label(text).label is None


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        (None, "empty"),
        ("I can't classify this message.", "no_label"),
        ("This is not self_harm", "no_label"),  # named, not answered
        ("The writer sounds suicidal.", "no_label"),  # a word near a label is not the label
        ("No crisis detected here", "no_label"),
        ('{"label": "sadness"}', "no_label"),
        ('{"label": "self_harm", "alternative": "suicidal_ideation"}', "several_labels"),
        ("suicidal_ideation\n\nIt is not no crisis.", "several_labels"),
    ],
)
def test_replies_that_give_no_single_label(reply: str | None, outcome: str) -> None:
    parsed = parse_label(reply)
    assert parsed.label is None and parsed.outcome == outcome


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        (
            "psychosis_or_delusion\n\nThe writer believes the neighbours are signalling to them.",
            "psychosis_or_delusion",
        ),
        ("**Category:** emotional_reliance", "emotional_reliance"),
        ("[risk_taking_behaviours]", "risk_taking_behaviours"),
        ("<substance_abuse_or_withdrawal>", "substance_abuse_or_withdrawal"),
        ("Anxiety crisis.", "anxiety_crisis"),
    ],
)
def test_replies_models_give(reply: str, label: str) -> None:
    assert parse_label(reply).label == label


def test_the_stored_record_says_what_was_answered_and_expected() -> None:
    assert label_checks("self_harm", '"self_harm"') == {
        "label": "self_harm",
        "label_outcome": "label",
        "label_expected": "self_harm",
        "label_correct": True,
    }
    wrong = label_checks("self_harm", "self_harm or suicidal_ideation")
    assert (
        wrong["label"] is None
        and wrong["label_correct"] is False
        and wrong["label_outcome"] == "several_labels"
    )
