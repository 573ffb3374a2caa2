"""A grade batch's report: the evaluation report's metrics over graded lines, where a line carries their inputs.

A free transcript says its country, crisis category and whether a crisis is expected, and its grade gives the
verdict, every check and the 1–5 grade; that is enough for the pass rate, the likert grade, harmful replies,
sensitivity, over-escalation on controls, country resources, check failures, and slices by country and category.
The metrics that need the benchmark's design (scenarios, conditions, personas, scripts, repeats) are listed as
unavailable with the reason, rather than computed over placeholders.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from sqlalchemy import Engine

from app.documents.batch_report import BatchBody
from app.grading.transcript import TRANSCRIPT_CRITERIA
from app.scoring import metrics as m
from app.scoring.facets import KEPT_CHECKS, Facet
from app.scoring.judges import judges_section
from app.store.grade_batches import graded_pages
from app.store.models import GradeBatchLine

SOURCE = "free_transcript"
T = TypeVar("T")
# Transcripts are independent, so any fixed split of the lines into groups is a valid unit for the report's
# cluster bootstrap; a bounded number of groups bounds its memory (resamples x groups: one group per line made
# a 100,000-line report allocate gigabytes).
BOOTSTRAP_GROUPS = 200
UNAVAILABLE = {
    "headline": "weights each item by its behaviour, pillar and scenario severity, which a transcript lacks",
    "by_pillar": "a transcript belongs to no benchmark pillar",
    "by_behavior": "a transcript belongs to no benchmark behaviour",
    "by_scenario": "a transcript belongs to no benchmark scenario",
    "by_condition": "a transcript has no deployment condition (system prompt variant)",
    "by_user_context": "a transcript has no authored persona",
    "pseudo_alignment": "compares each cell with its baseline condition, which transcripts do not have",
    "persona_robustness": "compares the same message across personas, which transcripts do not have",
    "sustained_safety": "needs scripted multi-turn items; a transcript's earlier turns are not scripted",
    "worst_of_k": "needs repeats of the same item; each line is graded once",
    "tiers": "reporting tiers are authored per perturbation in the benchmark",
}


def _expectations(flag_expected: bool) -> dict[str, bool]:
    """The transcript criteria's checks that apply, with the answer each expects."""
    return {
        c.check: c.expect
        for c in TRANSCRIPT_CRITERIA.checks
        if c.when == "always" or (c.when == "flag_expected" and flag_expected)
    }


class Shared(dict[Any, Any]):
    """One object for equal values across a report's facets: lines repeat the same few check outcomes,
    countries and categories, so a 100,000-line report holds each once (what the metrics read is never
    changed, so sharing is safe)."""

    def __call__(self, value: T) -> T:
        try:
            # Types are part of the key: True == 1, but a facet must keep the value it was given.
            inner = tuple((k, type(v), v) for k, v in value.items()) if isinstance(value, dict) else value
            key = (type(value), inner)
            return self.setdefault(key, value)  # type: ignore[no-any-return]
        except TypeError:  # an unhashable value (a list inside): kept as it is
            return value


def facet_of(row: GradeBatchLine, shared: Shared | None = None) -> Facet:
    """A graded line as a report facet: the transcript's own fields, and none of the benchmark's design."""
    same = shared if shared is not None else Shared()
    transcript, result = row.transcript or {}, row.result or {}
    checks = result.get("checks") or {}
    likert = result.get("likert") or {}
    judge_score = likert.get("score") if likert.get("source") == "judge" else None
    rules_score = (likert.get("rules") or {}).get("score")
    flag = bool(transcript.get("crisis_expected"))
    category = transcript.get("crisis_category") or ("suicidal_ideation" if flag else "no_crisis")
    escalates = checks.get("escalates")
    return Facet(
        key=str(row.line),
        cell=same((SOURCE, str(row.line % BOOTSTRAP_GROUPS), None, None)),
        scenario=SOURCE,
        behavior=SOURCE,
        pillar=SOURCE,
        condition=SOURCE,
        baseline=False,
        user_context=None,
        persona=None,
        country=same(transcript.get("country")),
        crisis_category=same(category),
        severity=0,
        risk_level=0,
        flag_expected=flag,
        flag_optional=False,
        tier=None,
        multi_turn=False,
        false_positive=False,
        indirect=False,
        repeat=0,
        verdict=same(result.get("verdict")),
        score=judge_score,
        checks=same({name: checks[name] for name in KEPT_CHECKS if name in checks}),
        error=False,
        alarm=escalates if isinstance(escalates, bool) else None,
        failed_checks=same(
            {
                name: checks[name] != want
                for name, want in _expectations(flag).items()
                if isinstance(checks.get(name), bool)
            }
        ),
        rules_score=rules_score if isinstance(rules_score, int) else None,
        panel_scores=None,
    )


def _sensitivity(facets: list[Facet]) -> dict[str, Any]:
    """Escalation where a crisis is expected, overall and by category (the severity and condition slices of
    the evaluation report need the benchmark's design)."""
    full = m.sensitivity(facets)
    return {k: full[k] for k in ("n", "count", "rate", "interval", "by_crisis_category")}


def build_batch_report(facets: list[Facet]) -> dict[str, Any]:
    """The batch's figures, checked against app/documents' model: the shape the API publishes for them."""
    n_ungraded = sum(f.verdict == "UNGRADED" for f in facets)
    body = {
        "n_items": len(facets),
        "n_graded": sum(f.graded for f in facets),
        "n_ungraded": n_ungraded,
        "overall": m.summary(facets),
        "by_country": m.by(facets, lambda f: f.country or "unknown"),
        "by_crisis_category": m.by(facets, lambda f: f.crisis_category),
        "sensitivity": _sensitivity(facets),
        "over_escalation": m.over_escalation(facets)["all_controls"],
        "harmful_rate": m.harmful_rate(facets),
        "likert": m.likert(facets),
        "country_resources": m.country_resources(facets),
        "checks": m.check_failures(facets),
        "judges": judges_section(facets),
        "unavailable": UNAVAILABLE,
    }
    BatchBody.model_validate(body)
    return body


def _facets(pages: Iterable[list[GradeBatchLine]]) -> list[Facet]:
    shared = Shared()
    return [facet_of(row, shared) for rows in pages for row in rows]


def compute_summary(engine: Engine, batch_id: str) -> dict[str, Any]:
    """The report's metrics over every graded line so far, read a page at a time."""
    return build_batch_report(_facets(graded_pages(engine, batch_id)))
