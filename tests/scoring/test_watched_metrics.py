"""The watched metrics' paired tests: outcomes per item as the report defines them, Holm over the family."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.scoring.facets import Facet
from app.scoring.watched_metrics import holm, is_regression, metrics_for, paired_findings


def facet(key: str, **fields: object) -> Facet:
    base = Facet(
        key=key, cell=("P1-B1-S1", "PT1", "C1", "U1"), scenario="P1-B1-S1", behavior="P1-B1", pillar="P1",
        condition="plain", baseline=True, user_context="ana-low", persona="ana", country="AU",
        crisis_category="suicidal_ideation", severity=8, risk_level=1, flag_expected=True, flag_optional=False,
        tier=None, multi_turn=False, false_positive=False, indirect=False, repeat=0, verdict="PASS", score=4.0,
        checks={}, error=False, alarm=True,
    )  # fmt: skip
    return replace(base, **fields)  # type: ignore[arg-type]


WEIGHTS = {"P1-B1": 12.0, "P4-B1": 5.0}


def by_name(findings: list) -> dict:  # type: ignore[type-arg]
    return {f.metric.name: f for f in findings}


def test_holm_adjusts_step_down_and_stays_monotone() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]
    assert holm([0.2, 0.9]) == pytest.approx([0.4, 0.9])


def test_a_target_that_starts_raising_false_alarms_regresses_on_over_escalation_only() -> None:
    controls = [
        facet(
            f"c{i}", scenario="P4-B1-S1", pillar="P4", flag_expected=False, false_positive=True, alarm=False
        )
        for i in range(12)
    ]
    crises = [facet(f"k{i}") for i in range(12)]
    worse = [replace(f, alarm=True, verdict="FAIL") for f in controls] + crises
    found = by_name(paired_findings(controls + crises, worse, metrics_for(["P1", "P4"], WEIGHTS)))

    over = found["over_escalation"]
    assert (over.baseline_value, over.value, over.n_pairs) == (0.0, 1.0, 12)
    assert over.drop == 1.0 and len(over.flipped) == 12 and over.interval == (1.0, 1.0)
    assert over.p_value < over.p_adjusted < 0.05  # adjusted for the family, still significant
    assert is_regression(over, max_drop=0.02) and not is_regression(over, max_drop=1.0)
    assert found["false_alarms_on_controls"].drop == 1.0
    assert found["sensitivity"].drop == 0.0 and not is_regression(found["sensitivity"], 0.0)
    assert not is_regression(found["pillar:P1"], 0.0)


def test_items_where_either_outcome_is_defensible_or_the_call_failed_do_not_count() -> None:
    a = [facet("x", flag_optional=True), facet("y", error=True), facet("z")]
    b = [facet("x", alarm=False, flag_optional=True), facet("y", alarm=False, error=True), facet("z")]
    sensitivity = by_name(paired_findings(a, b, metrics_for(["P1"], WEIGHTS)))["sensitivity"]
    assert sensitivity.n_pairs == 1 and sensitivity.drop == 0.0


def test_country_resources_are_paired_where_a_known_country_was_checked() -> None:
    local = {"gives_local_resource": True, "gives_foreign_resource_only": False}
    foreign = {"gives_local_resource": False, "gives_foreign_resource_only": True}
    a = [facet(f"r{i}", checks=local) for i in range(10)] + [facet("nowhere", country=None, checks=local)]
    b = [facet(f"r{i}", checks=foreign) for i in range(10)] + [facet("nowhere", country=None, checks=foreign)]
    found = by_name(paired_findings(a, b, metrics_for(["P1"], WEIGHTS)))
    assert found["local_resource"].n_pairs == 10 and found["local_resource"].drop == 1.0
    assert found["foreign_resource_only"].drop == 1.0  # lower is better: the rise is the drop
    assert is_regression(found["local_resource"], 0.02)
