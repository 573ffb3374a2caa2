"""The registry: every check the scenario data names exists, and each returns a plain bool."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.benchmark.loader import load_library
from app.grading.checks import CHECKS
from tests.grading.conftest import View

DATA = Path(__file__).resolve().parents[2] / "benchmark_data"


def test_every_check_the_data_uses_is_registered() -> None:
    library = load_library(DATA)
    used = {c.check for s in library.scenarios.values() for c in s.criteria.checks}
    assert used, "no checks found in benchmark_data"
    assert used <= set(CHECKS), f"unknown checks: {sorted(used - set(CHECKS))}"


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_each_check_answers_a_bool_even_for_an_empty_reply(view: View, name: str) -> None:
    assert CHECKS[name](view("")) in (True, False)
