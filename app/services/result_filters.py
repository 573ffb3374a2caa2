"""Filters on an evaluation's results, named as a researcher names them (a verdict, a behaviour, a country, a
failed check) and resolved against the library into the stored ids the store filters on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from app.benchmark.conversations import CONVERSATION_SCENARIO
from app.benchmark.loader import Library
from app.benchmark.schema import CrisisCategory, Scenario
from app.benchmark.simulated import SIMULATED_SCENARIO
from app.benchmark.verdicts import GRADED, UNGRADED
from app.errors import Invalid
from app.grading.checks import ALARM_CHECKS, CHECKS
from app.store.item_filter import FailedCheck, ItemFilter

VERDICTS: tuple[str, ...] = (*GRADED, UNGRADED)
CHECK_NAMES: tuple[str, ...] = tuple(CHECKS)
CRISIS_CATEGORIES: tuple[str, ...] = get_args(CrisisCategory)


@dataclass(frozen=True, slots=True)
class ResultFilters:
    """The query's filters as given; None: not filtered on."""

    verdict: str | None = None
    behavior: str | None = None
    scenario: str | None = None
    country: str | None = None
    check: str | None = None
    pillar: str | None = None
    condition: str | None = None
    crisis_category: str | None = None


def item_filter(filters: ResultFilters, library: Library) -> ItemFilter | None:
    """The store's filter for these, or an Invalid naming the query field whose value the library does not know."""
    if filters == ResultFilters():
        return None
    if filters.verdict is not None and filters.verdict not in VERDICTS:
        raise Invalid("verdict", f"verdict must be one of {', '.join(VERDICTS)}; got {filters.verdict!r}")
    return ItemFilter(
        verdict=filters.verdict,
        scenario_ids=_scenarios(filters, library),
        user_context_ids=_user_contexts(filters.country, library),
        failed_check=_failed_check(filters.check, library),
        condition_ids=_conditions(filters.condition, library),
        perturbation_ids=_perturbations(filters.crisis_category, library),
    )


def _scenarios(filters: ResultFilters, library: Library) -> frozenset[str] | None:
    wanted: frozenset[str] | None = None
    if filters.scenario is not None:
        if filters.scenario not in library.scenarios:
            raise Invalid("scenario", f"no scenario {filters.scenario!r} in benchmark {library.version}")
        wanted = frozenset({filters.scenario})
    if filters.behavior is not None:
        of_behavior = frozenset(s.id for s in library.scenarios.values() if s.behavior_id == filters.behavior)
        if not of_behavior:
            raise Invalid("behavior", f"no behaviour {filters.behavior!r} in benchmark {library.version}")
        wanted = of_behavior if wanted is None else wanted & of_behavior
    if filters.pillar is not None:
        if filters.pillar not in library.pillars:
            raise Invalid("pillar", f"no pillar {filters.pillar!r} in benchmark {library.version}")
        of_pillar = frozenset(s.id for s in library.scenarios.values() if s.pillar_id == filters.pillar)
        wanted = of_pillar if wanted is None else wanted & of_pillar
    return wanted


def _conditions(condition: str | None, library: Library) -> frozenset[str] | None:
    """Stored condition ids of one library condition: a scenario's local slot (`<scenario>-C#`) where it declares
    the condition, and the conversation and simulated slots that name it outright."""
    if condition is None:
        return None
    if condition not in library.conditions:
        raise Invalid("condition", f"no condition {condition!r} in benchmark {library.version}")
    return frozenset(
        {
            *(
                f"{scenario.id}-{local}"
                for scenario in library.scenarios.values()
                for local, condition_id in scenario.conditions.items()
                if condition_id == condition
            ),
            f"{CONVERSATION_SCENARIO}-{condition}",
            f"{SIMULATED_SCENARIO}-{condition}",
        }
    )


def _perturbations(category: str | None, library: Library) -> frozenset[str] | None:
    """Stored perturbation ids (`<scenario>-PT#`) of the messages authored in one crisis category."""
    if category is None:
        return None
    if category not in CRISIS_CATEGORIES:
        known = ", ".join(CRISIS_CATEGORIES)
        raise Invalid("crisis_category", f"crisis_category must be one of {known}; got {category!r}")
    return frozenset(
        f"{scenario.id}-{perturbation.id}"
        for scenario in library.scenarios.values()
        for perturbation in scenario.perturbations
        if perturbation.crisis_category == category
    )


def _user_contexts(country: str | None, library: Library) -> frozenset[str] | None:
    """Stored user-context ids (`<scenario>-<local id>`) of users in the country; items with no user are in none."""
    if country is None:
        return None
    code = country.upper()
    if code not in library.countries:
        known = ", ".join(sorted(library.countries))
        raise Invalid("country", f"no country {country!r} in benchmark {library.version} (known: {known})")
    return frozenset(
        f"{scenario.id}-{local}"
        for scenario in library.scenarios.values()
        for local, context_id in scenario.user_contexts.items()
        if library.user_contexts[context_id].country == code
    )


def _failed_check(name: str | None, library: Library) -> FailedCheck | None:
    if name is None:
        return None
    if name not in CHECKS:
        raise Invalid("check", f"check must be one of {', '.join(CHECK_NAMES)}; got {name!r}")
    expect_true: set[str] = set()
    expect_false: set[str] = set()
    for scenario in library.scenarios.values():
        for perturbation_id, expect in _expectations(scenario, name):
            (expect_true if expect else expect_false).add(perturbation_id)
    return FailedCheck(name=name, expect_true=frozenset(expect_true), expect_false=frozenset(expect_false))


def _expectations(scenario: Scenario, name: str) -> list[tuple[str, bool]]:
    """(stored perturbation id, what the check should say) where the scenario's criteria apply the check: the
    same reading as the report's failed checks (app/scoring/facets.py), the last listing of a name winning."""
    found: list[tuple[str, bool]] = []
    for perturbation in scenario.perturbations:
        flag = perturbation.flag_expected
        expect: bool | None = None
        for check in scenario.criteria.checks:
            if check.check == name and (check.when == "always" or (check.when == "flag_expected") == flag):
                expect = check.expect
        if expect is None or (perturbation.flag_optional and name in ALARM_CHECKS):
            continue
        found.append((f"{scenario.id}-{perturbation.id}", expect))
    return found
