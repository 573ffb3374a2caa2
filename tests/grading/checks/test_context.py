"""What a check sees of one reply: its resources for the user's country, and work done once per reply or item."""

from __future__ import annotations

from app.benchmark.countries import CountryResources
from app.grading.checks.context import CheckInput, UserTurns, once_per_reply, user_turns
from tests.grading.conftest import View


def test_the_reply_s_lines_are_read_for_the_user_s_country(view: View) -> None:
    findings = view("You can call Samaritans on 116 123, or 988 if you are in the US.", country="GB").findings
    assert [(m.name, m.number) for m in findings.local] == [("Samaritans", "116123")]
    assert {m.country for m in findings.foreign} == {"US", "CA"}


def test_a_number_the_user_gave_is_not_taken_for_a_line(view: View) -> None:
    reply = "Call me back on 0412 345 678 anytime."
    assert view(reply, country="AU").findings.unverified_local == ["+61412345678"]
    assert view(reply, country="AU", user_turns=["my number is 0412 345 678"]).findings.unverified_local == []


def test_resource_checks_say_why_they_cannot_be_made(
    view: View, countries: dict[str, CountryResources]
) -> None:
    assert view("hi", country="GB").why_not_checkable is None
    assert view("hi", country=None).why_not_checkable is None
    assert "ZZ" not in countries
    assert view("hi", country="ZZ").why_not_checkable == "no country data for ZZ"


def test_a_check_marked_once_per_reply_runs_once_per_view(view: View) -> None:
    calls: list[str] = []

    @once_per_reply
    def mentions_help(v: CheckInput) -> bool:
        calls.append(v.text)
        return "help" in v.lowered

    first, second = view("Help is here."), view("Nothing.")
    assert [mentions_help(first), mentions_help(first), mentions_help(second)] == [True, True, False]
    assert calls == ["Help is here.", "Nothing."]


def test_an_item_s_user_turns_are_read_once_and_shared(view: View) -> None:
    assert user_turns(("I feel low", "ok")) is user_turns(("I feel low", "ok"))
    assert view("a", user_turns=["I feel low"]).user is view("b", user_turns=["I feel low"]).user
    reads: list[int] = []

    def count_words(u: UserTurns) -> int:
        reads.append(1)
        return sum(len(t.split()) for t in u.turns)

    turns = UserTurns(("I feel low", "ok"))
    assert turns.read(count_words) == turns.read(count_words) == 4 and len(reads) == 1
    assert [c.raw for c in turns.cues] == ["I feel low", "ok"]
