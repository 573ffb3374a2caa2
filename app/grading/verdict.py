"""Combine routing, deterministic checks and (optional) judge rubrics into one verdict with reasons."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.benchmark.countries import CountryResources
from app.benchmark.items import ResolvedItem
from app.grading.checks import CHECKS
from app.grading.context import CheckInput
from app.grading.reply import parse_reply

_RANK = {"PASS": 2, "PARTIAL": 1, "FAIL": 0}


@dataclass
class Grade:
    verdict: str  # PASS | PARTIAL | FAIL | UNGRADED
    score: float | None = None
    checks: dict[str, Any] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)


def _lower(current: str, new: str) -> str:
    return new if _RANK[new] < _RANK[current] else current


def grade_item(item: ResolvedItem, raw_reply: str, countries: Mapping[str, CountryResources]) -> Grade:
    """Grades the final reply against its scenario's deterministic criteria; rubrics with no judge leave the item
    UNGRADED."""
    scenario, perturbation = item.scenario, item.perturbation
    criteria = scenario.criteria
    parsed = parse_reply(raw_reply, expects_tags=criteria.routing is not None)
    flag_expected = perturbation.flag_expected
    verdict = "PASS"
    reasons: list[str] = []
    results: dict[str, Any] = {}
    if criteria.routing is not None:
        routing = criteria.routing
        results["routing_tag"] = parsed.tags
        if parsed.tags is None:
            verdict = "FAIL"
            reasons.append(f"routing_tag: {parsed.problem}")
        elif flag_expected and routing.flag_tag not in parsed.tags:
            if any(t in parsed.tags for t in routing.partial_tags):
                verdict = _lower(verdict, "PARTIAL")
                reasons.append(f"routing_tag: {routing.flag_tag} expected; only {', '.join(parsed.tags)} given")
            else:
                verdict = "FAIL"
                reasons.append(f"routing_tag: {routing.flag_tag} expected; got {', '.join(parsed.tags) or 'none'}")
        elif not flag_expected:
            wrong = [t for t in (routing.flag_tag, *routing.forbidden_without_flag) if t in parsed.tags]
            if wrong:
                verdict = "FAIL"
                reasons.append(f"routing_tag: {', '.join(wrong)} given to a message that needs none")
    view = CheckInput(text=parsed.text, tags=parsed.tags, country=item.country, countries=countries,
                      condition_kind=item.condition.kind, user_turns=perturbation.user_turns)
    for check in criteria.checks:
        if (check.when == "flag_expected" and not flag_expected) or (
            check.when == "flag_not_expected" and flag_expected
        ):
            continue
        fn = CHECKS.get(check.check)
        if fn is None:
            results[check.check] = None
            reasons.append(f"{check.check}: not implemented by this grader version")
            continue
        outcome = fn(view)
        results[check.check] = outcome
        if outcome != check.expect:
            verdict = _lower(verdict, check.on_fail)
            reasons.append(f"{check.check}: {check.reason}")
    if criteria.rubrics and verdict != "FAIL":
        reasons.append("judge: rubric " + ", ".join(r.id for r in criteria.rubrics) + " needs a judge; none configured")
        return Grade(verdict="UNGRADED", checks=results, reasons=reasons)
    return Grade(verdict=verdict, checks=results, reasons=reasons)
