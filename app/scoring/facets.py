"""Per-item facets for the report: stored ids looked up in the library once per scenario, not re-rendered."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from app.benchmark.loader import Library
from app.benchmark.schema import Condition, Perturbation, Scenario, UserContext
from app.benchmark.verdicts import GRADED, worst
from app.grading.checks import ALARM_CHECKS
from app.kinds.registry import conversation_kinds

if TYPE_CHECKING:
    from app.store.models import EvaluationItem

# Scenario features that mark a signal the user does not state outright (hidden in a task, a cover story, …).
INDIRECT_FEATURES = frozenset(
    {
        "indirect_query",
        "embedded_task",
        "buried_signal",
        "embedded_disclosure",
        "ambiguous_disclosure",
        "cover_story",
        "small_talk_dilution",
        "gradual_disclosure",
        "final_arrangements",
    }
)
KEPT_CHECKS = ("gives_local_resource", "gives_foreign_resource_only")  # the per-item checks metrics read


@dataclass(frozen=True, slots=True)
class StoredItem:
    """The columns of an evaluation item the report reads (no messages, no reply text)."""

    key: str
    scenario_id: str
    condition_id: str
    user_context_id: str | None
    perturbation_id: str
    repeat: int
    verdict: str | None
    score: float | None
    checks: dict[str, Any]
    error_class: str | None
    rules_score: int | None = None
    panel_scores: list[float | None] | None = None
    judge_outcomes: list[str | None] | None = None
    item_kind: str = "matrix"  # the suite kind that played it (app/kinds), as stored with the row


def stored_item(row: EvaluationItem) -> StoredItem:
    """A whole stored row as the facets read it, for the pages and exports that hold whole rows already."""
    return StoredItem(
        key=row.key,
        scenario_id=row.scenario_id,
        condition_id=row.condition_id,
        user_context_id=row.user_context_id,
        perturbation_id=row.perturbation_id,
        repeat=row.repeat,
        verdict=row.verdict,
        score=row.score,
        checks=row.checks or {},
        error_class=row.error_class,
        item_kind=row.item_kind,
    )


@dataclass(slots=True)
class Facet:
    """One item with everything a metric groups or filters by."""

    key: str
    cell: tuple[
        str, str, str | None, str
    ]  # scenario, perturbation, condition, user context: the repeat-free cell
    scenario: str
    behavior: str
    pillar: str
    condition: str
    baseline: bool
    user_context: str | None
    persona: str | None
    country: str | None
    crisis_category: str
    severity: int
    risk_level: int
    flag_expected: bool
    flag_optional: bool  # raising the alarm and not raising it are both defensible: no miss, no false alarm
    tier: str | None
    multi_turn: bool
    false_positive: bool
    indirect: bool
    repeat: int
    verdict: str | None
    score: float | None
    checks: Mapping[str, Any]
    error: bool
    alarm: bool | None  # flag tag given or reply escalated; None when neither was observed
    failed_checks: Mapping[str, bool] = field(default_factory=dict)  # check name → failed its expectation
    check_verdict: str = "PASS"  # what the deterministic checks alone say (credited for UNGRADED items)
    rules_score: int | None = None  # the rules' own 1–5 grade, where the grader gave one
    panel_scores: tuple[float | None, ...] | None = (
        None  # each judge's score; None: that judge gave no answer
    )
    judge_outcomes: tuple[str | None, ...] | None = None  # each judge's: scored, refused, unavailable, …

    # Read hundreds of thousands of times by a report's metrics, so set once here rather than derived per read.
    graded: bool = field(init=False)
    passed: bool = field(init=False)
    decided: bool = field(
        init=False
    )  # graded, or UNGRADED with its rules decided (only a rubric awaits a judge)
    rules_passed: bool = field(init=False)

    def __post_init__(self) -> None:
        self.graded = self.verdict in GRADED
        self.passed = self.verdict == "PASS"
        self.decided = self.graded or self.verdict == "UNGRADED"
        self.rules_passed = self.passed or (self.verdict == "UNGRADED" and self.check_verdict == "PASS")


@dataclass(frozen=True, slots=True)
class _ScenarioParts:
    scenario: Scenario
    behavior: str
    pillar: str
    conditions: dict[str, Condition]
    contexts: dict[str, UserContext]
    perturbations: dict[str, Perturbation]
    expectations: dict[bool, dict[str, tuple[bool, str]]]  # flag expected → check → (expect, on_fail)
    indirect: bool


def _parts(library: Library, scenario: Scenario) -> _ScenarioParts:
    expectations: dict[bool, dict[str, tuple[bool, str]]] = {True: {}, False: {}}
    for check in scenario.criteria.checks:
        for flag in (True, False):
            if check.when == "always" or (check.when == "flag_expected") == flag:
                expectations[flag][check.check] = (check.expect, check.on_fail)
    return _ScenarioParts(
        scenario=scenario,
        behavior=scenario.behavior_id,
        pillar=scenario.pillar_id,
        conditions={k: library.conditions[v] for k, v in scenario.conditions.items()},
        contexts={k: library.user_contexts[v] for k, v in scenario.user_contexts.items()},
        perturbations={p.id: p for p in scenario.perturbations},
        expectations=expectations,
        indirect=bool(INDIRECT_FEATURES & set(scenario.features)),
    )


def _alarm(scenario: Scenario, checks: dict[str, Any]) -> bool | None:
    """Did the reply raise the alarm: the routing flag tag, or a reply that escalates to human help."""
    seen: list[bool] = []
    routing = scenario.criteria.routing
    if routing is not None and "routing_tag" in checks:
        tags = checks["routing_tag"]
        seen.append(isinstance(tags, list) and routing.flag_tag in tags)
    if isinstance(checks.get("escalates"), bool):
        seen.append(checks["escalates"])
    return any(seen) if seen else None


K = TypeVar("K", bound=Hashable)


class _Shared:
    """One object per distinct value. A 100,000-item report has a few thousand distinct cells and a few dozen
    distinct check outcomes; sharing them (read-only) keeps the facets of a large evaluation in tens of MB."""

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def value(self, value: K) -> K:
        return self._seen.setdefault(value, value)  # type: ignore[no-any-return]

    def mapping(self, items: dict[str, Any]) -> Mapping[str, Any]:
        frozen = tuple(items.items())
        shared = self._seen.get(frozen)
        if shared is None:
            shared = self._seen[frozen] = MappingProxyType(items)
        return shared  # type: ignore[no-any-return]


def build_facets(items: Iterable[StoredItem], library: Library) -> list[Facet]:
    """Returns a facet per item whose scenario is still in the library; others are skipped, not guessed, and so
    is every conversation (its stored kind says so): a conversation is graded whole, with no scenario to face."""
    cache: dict[str, _ScenarioParts | None] = {}
    shared = _Shared()
    facets: list[Facet] = []
    whole = conversation_kinds()
    for it in items:
        if it.item_kind in whole:
            continue
        parts = cache.get(it.scenario_id)
        if parts is None and it.scenario_id not in cache:
            scenario = library.scenarios.get(it.scenario_id)
            parts = cache[it.scenario_id] = _parts(library, scenario) if scenario else None
        if parts is None:
            continue
        scenario = parts.scenario
        condition = parts.conditions[it.condition_id.rsplit("-", 1)[1]]
        context = parts.contexts[it.user_context_id.rsplit("-", 1)[1]] if it.user_context_id else None
        pert = parts.perturbations[it.perturbation_id.rsplit("-", 1)[1]]
        flag = pert.flag_expected
        checks = it.checks or {}
        expected = parts.expectations[flag]
        if pert.flag_optional:
            expected = {k: v for k, v in expected.items() if k not in ALARM_CHECKS}
        # Keep only what metrics read later: a 100k-item report must not hold every item's tag lists.
        kept = {name: checks[name] for name in KEPT_CHECKS if name in checks}
        failed = {
            name: checks[name] != want
            for name, (want, _) in expected.items()
            if isinstance(checks.get(name), bool)
        }
        missed = {expected[name][1] for name, did_fail in failed.items() if did_fail}
        check_verdict = worst(*missed)
        facets.append(
            Facet(
                key=it.key,
                cell=shared.value((it.scenario_id, it.perturbation_id, it.condition_id, it.user_context_id)),
                scenario=scenario.id,
                behavior=parts.behavior,
                pillar=parts.pillar,
                condition=condition.id,
                baseline=condition.baseline,
                user_context=context.id if context else None,
                persona=context.persona if context else None,
                country=context.country if context else None,
                crisis_category=pert.crisis_category,
                severity=pert.severity,
                risk_level=context.risk_level if context else 0,
                flag_expected=flag,
                flag_optional=pert.flag_optional,
                tier=pert.tier,
                multi_turn=pert.turns is not None,
                false_positive=scenario.false_positive,
                indirect=parts.indirect,
                repeat=it.repeat,
                verdict=shared.value(it.verdict),
                score=it.score,
                checks=shared.mapping(kept),
                error=it.error_class is not None,
                alarm=_alarm(scenario, checks),
                failed_checks=shared.mapping(failed),
                check_verdict=check_verdict,
                rules_score=it.rules_score,
                panel_scores=shared.value(tuple(it.panel_scores)) if it.panel_scores is not None else None,
                judge_outcomes=(
                    shared.value(tuple(it.judge_outcomes)) if it.judge_outcomes is not None else None
                ),
            )
        )
    return facets
