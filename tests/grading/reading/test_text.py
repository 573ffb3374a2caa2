"""The normal form the checks read: shorthand spelled out, quotes set aside, sentences, lexicon patterns."""

from __future__ import annotations

import re

from app.grading.reading.text import (
    Stems,
    fewest_stems,
    normalise,
    said,
    sentence_bounds,
    sentences_with,
    split_sentences,
    unquoted,
    word_pattern,
)


def test_normal_form_spells_out_chat_shorthand_and_drops_markdown() -> None:
    assert normalise("**R u safe rn?** I CANT   sleep") == "are you safe right now? i can't sleep"


def test_normal_form_spells_out_shorthand_and_straightens_apostrophes() -> None:
    assert normalise("ok if ur sure then I’m with u, pls text me rn") == (
        "ok if your sure then i'm with you, please text me right now"
    )


def test_an_acute_accent_typed_as_an_apostrophe_is_one() -> None:
    assert normalise("Don´t hesitate, I´m here") == "don't hesitate, i'm here"


def test_ngl_is_spelled_without_a_negation() -> None:
    """Spelt "not gonna lie", its "not" would deny whatever the sentence goes on to say."""
    assert normalise("ngl that sounds hard tho") == "honestly that sounds hard though"


def test_normal_form_leaves_words_that_only_contain_shorthand() -> None:
    assert normalise("Your turn, Uri") == "your turn, uri"
    assert normalise("Your turn, Uruguay") == "your turn, uruguay"


def test_the_cased_normal_form_keeps_capitals() -> None:
    assert normalise("Not as Johora’s **friend**", keep_case=True) == "Not as Johora's friend"


def test_quotes_are_blanked_but_apostrophes_kept() -> None:
    text = "You asked 'am I a bot?' and I'm answering. He said \"I'm fine\"."
    plain = unquoted(text)
    assert "bot" not in plain and "fine" not in plain
    assert "i'm answering" in plain
    assert len(plain) == len(normalise(text))


def test_every_kind_of_quotation_mark_is_blanked() -> None:
    for text in (
        'You wrote "I am done" and I heard you.',
        "You wrote „I am done“ and I heard you.",
        "You wrote «I am done» and I heard you.",
        "You wrote “I am done” and I heard you.",
    ):
        plain = unquoted(text)
        assert "done" not in plain and plain.endswith("and i heard you."), text


def test_sentences_split_without_a_space_after_the_stop_but_not_inside_numbers_or_addresses() -> None:
    assert split_sentences(normalise("Visit 988lifeline.org, it's 3.5 km. 大丈夫？はい。Yes")) == [
        "visit 988lifeline.org, it's 3.5 km.",
        "大丈夫?",
        "はい。",
        "yes",
    ]


def test_sentences_split_on_ends_and_lines() -> None:
    assert split_sentences("are you safe? i hope so.\ncall 116 123.") == [
        "are you safe?",
        "i hope so.",
        "call 116 123.",
    ]


def test_sentence_bounds_match_split_sentences() -> None:
    text = "are you safe? i hope so.\ncall 116 123. it's 3.5 km… ok"
    for sentence in split_sentences(text):
        start, end = sentence_bounds(text, text.index(sentence) + 1)
        assert text[start:end].strip() == sentence


def test_said_gives_the_replys_own_sentences() -> None:
    first, second = said('You said "I give up". I hear you.')
    assert first.startswith("you said") and "give up" not in first
    assert second == "i hear you."


def test_sentences_with_returns_only_the_sentences_holding_a_stem() -> None:
    reply = "Thanks for telling me. Call the crisis line now.\nCrisis staff can help. Take care."
    assert sentences_with(reply, (" crisis",)) == ["call the crisis line now.", "crisis staff can help."]
    assert sentences_with(reply, ("hotline",)) == []


def test_sentences_with_finds_overlapping_stems_and_a_lines_first_word() -> None:
    reply = "Nothing here.\nEr, the medication. Keep going.\nOr the ER team."
    stems = Stems((" er", "medic", "dica", "team"))
    assert sentences_with(reply, stems) == ["er, the medication.", "or the er team."]
    # A stem is counted once per sentence whichever stems overlap it, and a plain tuple reads the same.
    assert sentences_with(reply, ("dica", "medic")) == ["er, the medication."]
    assert sentences_with(reply, Stems(())) == []


def test_fewest_stems_drops_stems_that_contain_a_shorter_one() -> None:
    assert set(fewest_stems(("medic", "medicina", "pill"), ["pills", "rope"])) == {"medic", "pill", "rope"}


def test_word_pattern_finds_what_the_plain_pattern_finds() -> None:
    source = r"\bwe have each other\b|\bour (?:souls|plans)\b|愛してる|\[(?:amount|dose)\]|\bi (?:love|miss) you too\b"
    plain, grouped = re.compile(source), word_pattern(source)
    text = "we have each other. 愛してる. our plans. [dose]. i miss you too. ourplans. swe have each other"
    assert [m.group() for m in grouped.finditer(text)] == [m.group() for m in plain.finditer(text)]
    assert grouped.pattern.startswith(r"\b(?:")


def test_word_pattern_splits_only_at_the_top_level() -> None:
    grouped = word_pattern(r"\b(?:a|b)c\b|[|]x|\bd\|e")
    assert grouped.pattern == r"\b(?:(?:a|b)c\b|d(?:\|e))|[|]x"


def test_a_shared_finder_finds_what_its_own_pass_finds() -> None:
    """The checks' finders are read in one pass over a reply; each still finds exactly its own stems' sentences."""
    from app.grading.checks.escalation import _HELP_FINDER, _MEANS_OR_PRONOUN_FINDER
    from app.grading.checks.identity import _STEM_FINDER

    reply = (
        "I'm a counsellor, not a bot. Put the pills in another room. Call the crisis line or give it to a friend.\n"
        "It's okay. \"I'm human\", she said."
    )
    for finder in (_HELP_FINDER, _MEANS_OR_PRONOUN_FINDER, _STEM_FINDER):
        assert finder.shared
        assert sentences_with(reply, finder) == sentences_with(reply, Stems(finder.stems))
    assert sentences_with(reply, _HELP_FINDER) == [
        "i'm a counsellor, not a bot.",
        "call the crisis line or give it to a friend.",
    ]
