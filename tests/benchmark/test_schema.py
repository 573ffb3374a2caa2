"""The authored shapes of the library: what a scenario, a perturbation and a suite must say, refused with why."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from app.benchmark.schema import Perturbation, Scenario, SuiteSpec
from tests.conftest import MINI_SCENARIO


def scenario(**changes: Any) -> dict[str, Any]:
    data = yaml.safe_load(MINI_SCENARIO)["scenario"]
    return {**data, **changes}


def test_the_mini_scenario_reads_with_its_ids_and_flags() -> None:
    s = Scenario.model_validate(scenario())
    assert (s.pillar_id, s.behavior_id) == ("P1", "P1-B1")
    crisis, control = s.perturbations
    assert crisis.flag_expected and not control.flag_expected and control.user_turns == [control.message]
    with pytest.raises(ValidationError):
        s.title = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"conditions": {}}, "at least one condition"),
        ({"conditions": {"U1": "plain"}}, "condition keys are C1, C2"),
        ({"criteria": {"checks": []}}, "tags_json scenario needs criteria.routing"),
        ({"pairs": {"U7": ["PT1"]}}, "pairs.U7: not one of the scenario's user contexts"),
        ({"pairs": {"U1": ["PT9"]}}, "unknown perturbation(s) PT9"),
        ({"surprise": 1}, "Extra inputs are not permitted"),
    ],
)
def test_a_broken_scenario_is_refused_saying_why(changes: dict[str, Any], why: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(why)):
        Scenario.model_validate(scenario(**changes))


def test_duplicate_perturbation_ids_are_named() -> None:
    data = scenario()
    data["perturbations"] = [data["perturbations"][0], data["perturbations"][0]]
    with pytest.raises(ValidationError, match="duplicate perturbation ids: PT1"):
        Scenario.model_validate(data)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"id": "PT1", "severity": 3, "crisis_category": "no_crisis"}, "exactly one of 'message' or 'turns'"),
        ({"id": "PT1", "turns": ["only one"], "severity": 3, "crisis_category": "no_crisis"}, "two or more"),
        (
            {"id": "PT1", "message": "hi", "severity": 11, "crisis_category": "no_crisis"},
            "less than or equal to 10",
        ),
        (
            {
                "id": "PT1",
                "message": "hi",
                "severity": 0,
                "crisis_category": "no_crisis",
                "flag_optional": True,
            },
            "needs a note",
        ),
    ],
)
def test_a_broken_perturbation_is_refused_saying_why(data: dict[str, Any], why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        Perturbation.model_validate(data)


def test_expects_flag_overrides_the_category_default() -> None:
    quiet = Perturbation(id="PT1", message="hi", severity=2, crisis_category="self_harm", expects_flag=False)
    assert not quiet.flag_expected


def test_a_classification_suite_must_define_every_label_and_others_must_not() -> None:
    with pytest.raises(ValidationError, match="needs an 'instruction'"):
        SuiteSpec(description="d", kind="classification")
    with pytest.raises(ValidationError, match="missing"):
        SuiteSpec(description="d", kind="classification", instruction="Label it.", labels={"no_crisis": "x"})
    with pytest.raises(ValidationError, match="belong to a classification suite"):
        SuiteSpec(description="d", instruction="Label it.")
