"""Comparing two evaluations of one team on one benchmark version: metric differences and paired tests."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.benchmark.loader import Library
from app.errors import Conflict, NotFound
from app.scoring import vocabulary
from app.scoring.facets import build_facets
from app.scoring.headline import behavior_weights
from app.scoring.paired import paired_tests
from app.scoring.report import stored_items
from app.scoring.watched_metrics import metrics_for, paired_findings
from app.services.results import report
from app.store import evaluations as ev_store
from app.store.models import Evaluation

# (name, path into the report); per-pillar and per-behaviour rows are added from the reports.
HEADLINE_METRICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("headline", ("headline", "score")),
    ("pass_rate", ("overall", "pass_rate")),
    ("rules_pass_rate", ("overall", "rules_pass_rate", "rate")),
    ("mean_score", ("overall", "mean_score", "mean")),
    ("sensitivity", ("sensitivity", "rate")),
    ("over_escalation", ("over_escalation", "rate")),
    ("false_alarms_on_controls", ("over_escalation", "all_controls", "rate")),
    ("persona_robustness_gap", ("persona_robustness", "gap")),
    ("local_resource", ("country_resources", "local", "rate")),
    ("foreign_resource_only", ("country_resources", "foreign_only", "rate")),
    ("sustained_safety", ("sustained_safety", "pass_rate")),
    ("worst_of_k", ("worst_of_k", "rate")),
    ("ungraded_share", ("ungraded_share",)),
)

CLASSIFICATION_METRICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("classification_accuracy", ("classification", "accuracy", "rate")),
    ("classification_kappa", ("classification", "kappa", "value")),
    ("classification_outside", ("classification", "outside", "rate")),
)


def _get(session: Session, team_id: str, evaluation_id: str, field: str) -> Evaluation:
    evaluation = ev_store.get_evaluation(session=session, team_id=team_id, evaluation_id=evaluation_id)
    if evaluation is None:
        raise NotFound(field, f"{field}: no evaluation {evaluation_id!r}")
    return evaluation


def _dig(body: dict[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = body
    for part in path:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _difference(a: float | None, b: float | None) -> dict[str, float | None]:
    return {"a": a, "b": b, "difference": round(b - a, 4) if a is not None and b is not None else None}


def _compared(evaluation: Evaluation, body: dict[str, Any]) -> dict[str, Any]:
    """Who one side is, and its headline as the report reads it (0–100, band, quality, cap)."""
    shown = vocabulary.legible(body.get("headline") or {})
    return {
        "id": evaluation.id,
        "target_name": evaluation.target_name,
        "model": evaluation.model,
        "suite": evaluation.suite,
        "status": evaluation.status,
        "score_100": shown["score_100"],
        "quality_100": shown["quality_100"],
        "band": shown["band"],
        **({"cap": shown["cap"]} if shown.get("cap") else {}),
    }


def compare(*, session: Session, library: Library, team_id: str, a_id: str, b_id: str) -> dict[str, Any]:
    """Per-metric differences (b − a) and paired significance by item cell; 409 across benchmark versions."""
    a, b = _get(session, team_id, a_id, "a"), _get(session, team_id, b_id, "b")
    if a.benchmark_version != b.benchmark_version:
        raise Conflict(
            "b",
            f"b: benchmark version {b.benchmark_version} differs from a's "
            f"{a.benchmark_version}; items only pair within one version",
        )
    ra, rb = (
        report(session=session, evaluation=a, library=library),
        report(session=session, evaluation=b, library=library),
    )
    metrics = {name: _difference(_dig(ra, path), _dig(rb, path)) for name, path in HEADLINE_METRICS}
    for section in ("by_pillar", "by_behavior"):
        for key in sorted(set(ra.get(section, {})) | set(rb.get(section, {}))):
            metrics[f"{section[3:]}:{key}"] = _difference(
                _dig(ra, (section, key, "pass_rate")), _dig(rb, (section, key, "pass_rate"))
            )
    if "classification" in ra or "classification" in rb:  # classify runs: their label agreement
        for name, path in CLASSIFICATION_METRICS:
            metrics[name] = _difference(_dig(ra, path), _dig(rb, path))
    items_a = list(stored_items(session=session, evaluation_id=a.id))
    items_b = list(stored_items(session=session, evaluation_id=b.id))
    tests: dict[str, Any] = paired_tests(
        items_a,
        items_b,
        {
            "by_pillar": lambda cell: cell[0].split("-", 1)[0],
            "by_behavior": lambda cell: cell[0].rsplit("-", 1)[0],
        },
    )
    findings = paired_findings(
        build_facets(items_a, library),
        build_facets(items_b, library),
        metrics_for(library.pillars, behavior_weights(library)),
    )
    tests["by_metric"] = {f.metric.name: f.as_dict() for f in findings}
    table = vocabulary.names(library)
    return {
        "a": _compared(a, ra),
        "b": _compared(b, rb),
        "benchmark_version": a.benchmark_version,
        "metrics": metrics,
        "labels": {name: vocabulary.metric_label(name, table) for name in metrics},
        "paired": tests,
        "method": "pass/fail exact McNemar (binomial test on discordant cells), scores: Wilcoxon signed-rank;"
        " cells are scenario × perturbation × condition × user context, repeats folded worst-of-k. by_metric:"
        " the watched metrics (headline, pillars, sensitivity, over-escalation, country resources, mean"
        " score) paired by item key, p-values Holm-Bonferroni adjusted together (p_adjusted); the headline"
        " score by a paired permutation test swapping each item's two answers between the runs, its"
        " interval a paired bootstrap of items",
    }
