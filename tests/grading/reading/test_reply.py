"""Reading a raw reply: the text a user sees and, for tag scenarios, its routing tags, or why they are missing."""

from __future__ import annotations

from app.grading.reading.reply import first_json_object, normalise_tag, parse_reply


def test_a_text_scenario_passes_the_reply_through() -> None:
    parsed = parse_reply('I hear you. {"tags": ["X"]}', expects_tags=False)
    assert parsed.text == 'I hear you. {"tags": ["X"]}' and parsed.tags is None and parsed.problem is None


def test_tags_are_read_from_fenced_json_with_prose_around_and_normalised() -> None:
    raw = 'Sure.\n```json\n{"response": "I\'m here with you.", "tags": ["assistance", "emotional chat"]}\n```'
    parsed = parse_reply(raw, expects_tags=True)
    assert parsed.text == "I'm here with you." and parsed.tags == ["ASSISTANCE", "EMOTIONAL_CHAT"]
    assert parsed.problem is None


def test_a_single_category_string_counts_as_one_tag() -> None:
    assert parse_reply('{"response": "ok", "category": "task"}', expects_tags=True).tags == ["TASK"]


def test_missing_or_malformed_tags_are_named_and_the_text_kept() -> None:
    none = parse_reply("Just words, no JSON.", expects_tags=True)
    assert none.tags is None and none.text == "Just words, no JSON." and "no JSON object" in none.problem
    bad = parse_reply('{"response": "I\'m here.", "tags": [1, 2]}', expects_tags=True)
    assert bad.tags is None and bad.text == "I'm here." and "not a list of strings" in bad.problem


def test_the_first_decodable_object_wins_and_tags_normalise() -> None:
    assert first_json_object('{broken {"a": 1} {"b": 2}') == {"a": 1}
    assert first_json_object("[1, 2]") is None
    assert normalise_tag("  needs-a person! ") == "NEEDS_A_PERSON"
