"""Results filters named as a researcher names them, resolved against the library into stored ids; a name the
library does not know is refused naming the query field."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.benchmark.loader import Library, load_library
from app.errors import Invalid
from app.services.result_filters import ResultFilters, item_filter


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(mini_data_dir)


def test_no_filter_is_no_condition(library: Library) -> None:
    assert item_filter(ResultFilters(), library) is None


def test_behaviour_scenario_and_country_become_stored_ids(library: Library) -> None:
    where = item_filter(ResultFilters(behavior="P4-B1", country="au"), library)
    assert where is not None
    assert where.scenario_ids == {"P4-B1-S1"}
    assert where.user_context_ids == {"P1-B1-S1-U1", "P4-B1-S1-U1"}
    narrowed = item_filter(ResultFilters(behavior="P1-B1", scenario="P4-B1-S1"), library)
    assert narrowed is not None and narrowed.scenario_ids == frozenset()  # both asked: neither matches


def test_a_failed_check_splits_perturbations_by_what_they_expect(library: Library) -> None:
    where = item_filter(ResultFilters(check="escalates"), library)
    assert where is not None and where.failed_check is not None
    # the crisis message expects escalation; the controls of P4 expect none; P1's control expects nothing of it
    assert where.failed_check.expect_true == {"P1-B1-S1-PT1"}
    assert where.failed_check.expect_false == {"P4-B1-S1-PT1"}


def test_pillar_condition_and_crisis_category_become_stored_ids(library: Library) -> None:
    where = item_filter(
        ResultFilters(pillar="P1", condition="plain", crisis_category="suicidal_ideation"), library
    )
    assert where is not None
    assert where.scenario_ids == {"P1-B1-S1"}
    # the scenario slot a library condition fills, and the conversation and simulated slots that name it
    assert where.condition_ids == {"P1-B1-S1-C1", "P4-B1-S1-C1", "CONV-plain", "SIM-plain"}
    assert where.perturbation_ids == {"P1-B1-S1-PT1"}


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        (ResultFilters(verdict="fail"), "verdict"),
        (ResultFilters(check="is_nice"), "check"),
        (ResultFilters(behavior="P9-B9"), "behavior"),
        (ResultFilters(scenario="P9-B9-S9"), "scenario"),
        (ResultFilters(country="XX"), "country"),
        (ResultFilters(pillar="P9"), "pillar"),
        (ResultFilters(condition="pirate"), "condition"),
        (ResultFilters(crisis_category="sad"), "crisis_category"),
    ],
)
def test_an_unknown_value_is_refused_naming_its_field(
    library: Library, filters: ResultFilters, field: str
) -> None:
    with pytest.raises(Invalid) as refused:
        item_filter(filters, library)
    assert refused.value.field == field
