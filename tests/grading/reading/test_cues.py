"""Cue sets: the features a reply shows and where, with denials, questions and first occurrences honoured."""

from __future__ import annotations

from app.grading.reading.cues import CueSet, CueText, expand, literal_prefix, spec

CUES = CueSet(
    {
        "greets": spec(r"hello there"),
        "asks_if_ok": spec(r"are you (?:ok|okay)\b", question=True),
        "offers_call": spec(r"(?:call|ring) (?:a friend|someone)", negation=None, earliest=True),
    }
)


def test_a_feature_is_found_with_where_it_starts() -> None:
    assert CUES.find(CueText("Hello there! I hope today is kind.")) == {"greets": 0}
    assert CUES.find(CueText("Nothing here matches.")) == {}


def test_a_denial_just_before_a_cue_cancels_it_but_not_across_a_clause() -> None:
    assert CUES.find(CueText("I would never say hello there")) == {}
    said = "I didn't sleep, but hello there"
    assert CUES.find(CueText(said)) == {"greets": said.index("hello")}


def test_a_question_cue_counts_only_in_a_sentence_that_asks() -> None:
    assert "asks_if_ok" in CUES.find(CueText("That was a lot. Are you okay?"))
    assert "asks_if_ok" not in CUES.find(CueText("I hope you are okay. Talk soon."))


def test_an_earliest_feature_reports_its_first_place_whichever_cue_found_it() -> None:
    said = "You could ring someone, or call a friend."
    assert CUES.find(CueText(said)) == {"offers_call": said.index("ring")}
    unguarded = "I can't call a friend"  # a cue without negation counts even after a denial
    assert CUES.find(CueText(unguarded)) == {"offers_call": unguarded.index("call")}


def test_text_is_read_lower_cased_with_straight_apostrophes() -> None:
    text = CueText("I’M Here")
    assert text.norm == "i'm here" and {"i", "m", "here"} <= text.words and text.word_count == 3


def test_patterns_expand_to_literal_led_variants() -> None:
    assert sorted(expand(r"(?:call|ring) someone")) == ["call someone", "ring someone"]
    assert literal_prefix(r"are you (?:ok|okay)") == "are you "
