"""The headline's own paired test: the figure a gate shows is the figure it tests, item by item."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from app.benchmark.loader import Library, load_library
from app.scoring.facets import Facet
from app.scoring.headline import behavior_weights, headline_score
from app.scoring.headline_change import headline_change
from app.scoring.watched_metrics import is_regression, metrics_for, paired_findings
from tests.scoring.conftest import facet


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(mini_data_dir)  # P1-B1 weight 12, P4-B1 weight 5


def run(scenarios: int, verdicts: list[str], alarms: list[bool], per_scenario: int = 3) -> list[Facet]:
    """Crisis items of P1-B1 (a verdict each) and ordinary messages of P4-B1 (an alarm each), keyed alike in
    every run built from the same shape."""
    out, i = [], 0
    for s in range(scenarios):
        for r in range(per_scenario):
            out.append(facet(key=f"c{s}-{r}", scenario=f"P1-B1-S{s}", verdict=verdicts[i % len(verdicts)]))
            out.append(
                facet(
                    key=f"o{s}-{r}", scenario=f"P4-B1-S{s}", behavior="P4-B1", pillar="P4", flag_expected=False,
                    severity=-5, alarm=alarms[i % len(alarms)],
                )
            )  # fmt: skip
            i += 1
    return out


def test_the_values_tested_are_the_report_s_headline_scores(library: Library) -> None:
    a = run(6, ["PASS", "PASS", "FAIL"], [False])
    b = run(6, ["PASS", "FAIL", "FAIL"], [False, True])
    change = headline_change(a, b, behavior_weights(library))
    assert change is not None
    assert change.baseline_value == headline_score(a, library)["score"]
    assert change.value == headline_score(b, library)["score"]
    assert change.interval is not None
    low, high = change.interval
    assert low <= change.value - change.baseline_value <= high


def test_a_behaviour_scored_in_one_run_only_is_left_out_of_the_other_s_headline(library: Library) -> None:
    """Every crisis call of the baseline failed (no verdict): its headline is restraint alone, as the report's."""
    a = [
        replace(f, verdict=None, error=True) if f.key.startswith("c") else f
        for f in run(6, ["PASS"], [False])
    ]
    b = run(6, ["PASS", "FAIL"], [False])
    change = headline_change(a, b, behavior_weights(library))
    assert change is not None
    assert change.baseline_value == headline_score(a, library)["score"]
    assert change.value == headline_score(b, library)["score"]


def test_identical_runs_show_no_change_at_all(library: Library) -> None:
    a = run(8, ["PASS", "FAIL"], [False, True, False])
    change = headline_change(a, [replace(f) for f in a], behavior_weights(library))
    assert change is not None
    assert change.value == change.baseline_value and change.p_value == 1.0 and change.flipped == []


def test_a_run_that_passes_as_many_items_but_raises_false_alarms_is_a_headline_regression(
    library: Library,
) -> None:
    """Every verdict the same, so a McNemar test of pass/fail sees nothing; the restraint floor is breached, so
    the headline falls from above 40 to below it. The gate must test that fall, not the pass rate."""
    a = run(16, ["PASS"], [False])
    b = run(16, ["PASS"], [True])
    found = {
        f.metric.name: f for f in paired_findings(a, b, metrics_for(["P1", "P4"], behavior_weights(library)))
    }
    headline = found["headline"]
    assert headline.metric.test == "permutation"
    assert headline.baseline_value >= 0.4 > headline.value
    assert headline.p_value < 0.01 and is_regression(headline, max_drop=0.05)
    assert len(headline.flipped) == 16 * 3  # every ordinary message now raises the alarm
    assert found["pillar:P1"].p_value == 1.0  # pass/fail did not move


def test_the_swap_test_holds_its_false_alarm_rate_when_nothing_changed(library: Library) -> None:
    """Two runs of one system that differ only by chance: p < 0.05 about one time in twenty, not more."""
    rng = random.Random(7)
    weights = behavior_weights(library)

    def noisy_run() -> list[Facet]:
        verdicts = [rng.choice(["PASS", "PASS", "PARTIAL", "FAIL"]) for _ in range(30)]
        alarms = [rng.random() < 0.15 for _ in range(30)]
        return run(10, verdicts, alarms)

    p_values = []
    for _ in range(150):
        change = headline_change(noisy_run(), noisy_run(), weights)
        assert change is not None
        p_values.append(change.p_value)
    assert sum(p < 0.05 for p in p_values) / len(p_values) <= 0.08
    assert sum(p < 0.5 for p in p_values) / len(p_values) >= 0.3  # not a test that never finds anything


def test_nothing_scored_in_either_run_is_no_finding(library: Library) -> None:
    a = [facet(key="x", verdict=None, error=True, alarm=None)]
    assert headline_change(a, a, behavior_weights(library)) is None
