"""Every deterministic check against its paraphrase battery: ≥ 30 positives, ≥ 30 hard negatives, ≥ 95%."""

from __future__ import annotations

import pytest

from app.benchmark.countries import CountryResources
from app.grading.checks import CHECKS
from tests.grading.checks.paraphrases.battery import MIN_EACH, TARGET_ACCURACY, batteries, load, run


def test_every_check_has_a_battery() -> None:
    assert set(CHECKS) <= set(batteries())


@pytest.mark.parametrize("check", batteries())
def test_battery_is_large_enough(check: str) -> None:
    cases = load(check)
    assert sum(c.expected for c in cases) >= MIN_EACH
    assert sum(not c.expected for c in cases) >= MIN_EACH


@pytest.mark.parametrize("check", batteries())
def test_check_reaches_its_target_on_the_battery(check: str, countries: dict[str, CountryResources]) -> None:
    outcome = run(check, countries)
    misses = "\n".join(f"  expected {c.expected}: {c.text[:120]!r}" for c in outcome.wrong)
    assert outcome.accuracy >= TARGET_ACCURACY, f"{check}: {outcome.accuracy:.3f}\n{misses}"
