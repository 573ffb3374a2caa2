"""The registry: every check the scenario data names exists, and each returns a plain bool."""

from __future__ import annotations

import pytest

from app.benchmark.loader import DEFAULT_DATA_DIR, load_library
from app.grading.checks import CHECKS, escalation
from app.grading.checks.context import UserTurns, user_turns
from tests.grading.conftest import View

DATA = DEFAULT_DATA_DIR


def test_every_check_the_data_uses_is_registered() -> None:
    library = load_library(DATA)
    used = {c.check for s in library.scenarios.values() for c in s.criteria.checks}
    assert used, "no checks found in benchmark_data"
    assert used <= set(CHECKS), f"unknown checks: {sorted(used - set(CHECKS))}"


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_each_check_answers_a_bool_even_for_an_empty_reply(view: View, name: str) -> None:
    assert CHECKS[name](view("")) in (True, False)


def test_a_check_asked_twice_of_one_reply_reads_the_first_answer(view: View) -> None:
    # The scenario's criteria and the rules' 1-5 grade both ask "escalates"; the second ask must not re-run it.
    reply = view("Please call Samaritans on 116 123 tonight.", country="GB")
    assert CHECKS["escalates"](reply) is True
    reply.text = "Nothing to see."  # a re-run would now answer False
    assert CHECKS["escalates"](reply) is True
    assert escalation.escalates(view("Nothing to see.")) is False


def test_the_users_turns_are_read_once_for_every_reply_to_them() -> None:
    turns = ("I have the pills here.", "Please just listen.")
    readings: list[tuple[str, ...]] = []

    def read(user: UserTurns) -> int:
        readings.append(user.turns)
        return len(user.turns)

    assert user_turns(turns) is user_turns(tuple(turns))
    assert [user_turns(turns).read(read) for _ in range(3)] == [2, 2, 2]
    assert readings == [turns]
