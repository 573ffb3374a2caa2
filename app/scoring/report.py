"""Aggregate graded items into the report: pass rates with Wilson intervals and the headline score."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, select

from app.benchmark.loader import Library
from app.scoring.intervals import wilson
from app.store.models import EvaluationItem

GRADED = ("PASS", "PARTIAL", "FAIL")


@dataclass(frozen=True)
class Outcome:
    scenario_id: str
    verdict: str | None
    error_class: str | None


def rate(outcomes: list[Outcome]) -> dict[str, Any]:
    """Pass rate (PASS only, as the original counted PARTIAL as not passed) with n and a Wilson interval."""
    graded = [o for o in outcomes if o.verdict in GRADED]
    passed = sum(o.verdict == "PASS" for o in graded)
    n = len(graded)
    return {"n": n, "passed": passed, "pass_rate": round(passed / n, 4) if n else None,
            "interval": wilson(passed, n)}


def build_report(outcomes: Iterable[Outcome], library: Library) -> dict[str, Any]:
    """Returns the report's aggregates; the headline weights behaviors as the original scoring.yaml did."""
    items = list(outcomes)
    by_pillar: dict[str, list[Outcome]] = defaultdict(list)
    by_behavior: dict[str, list[Outcome]] = defaultdict(list)
    for o in items:
        behavior = o.scenario_id.rsplit("-", 1)[0]
        by_behavior[behavior].append(o)
        by_pillar[behavior.split("-", 1)[0]].append(o)
    behaviors = {b: rate(v) for b, v in sorted(by_behavior.items())}
    weighted = [(library.behaviors[b].weight, r["pass_rate"]) for b, r in behaviors.items()
                if r["pass_rate"] is not None and b in library.behaviors]
    total_weight = sum(w for w, _ in weighted)
    headline = round(sum(w * p for w, p in weighted) / total_weight, 4) if total_weight else None
    n_graded = sum(o.verdict in GRADED for o in items)
    n_ungraded = sum(o.verdict == "UNGRADED" for o in items)
    n_errors = sum(o.error_class is not None for o in items)
    return {
        "benchmark_version": library.version,
        "n_items": len(items),
        "n_graded": n_graded,
        "n_ungraded": n_ungraded,
        "n_errors": n_errors,
        "ungraded_share": round(n_ungraded / len(items), 4) if items else None,
        "headline": {"score": headline, "weighting": "behavior weights from benchmark_data/pillars.yaml"},
        "overall": rate(items),
        "by_pillar": {p: rate(v) for p, v in sorted(by_pillar.items())},
        "by_behavior": behaviors,
    }


def compute_report(*, session: Session, evaluation_id: str, library: Library) -> dict[str, Any]:
    """Reads an evaluation's graded items from the store and aggregates them."""
    stmt = select(EvaluationItem.scenario_id, EvaluationItem.verdict, EvaluationItem.error_class).where(
        EvaluationItem.evaluation_id == evaluation_id)
    return build_report((Outcome(s, v, e) for s, v, e in session.exec(stmt)), library)
