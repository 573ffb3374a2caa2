"""Regressions: a succeeded evaluation compared item by item with its baseline, significant drops recorded.

Why paired by item key: both runs answer the same items (same suite, benchmark and repeats), so each item is its
own control and McNemar / Wilcoxon see the change itself rather than two noisy rates. Every watched metric is
tested, and the p-values are adjusted together (Holm-Bonferroni) so watching more metrics does not raise more
false alarms; a drop is a regression when its adjusted p < 0.05 and it is larger than the alert's max_drop.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
from scipy.stats import ttest_rel
from sqlmodel import Session

from app.benchmark.loader import Library
from app.schemas import AlertRule, RegressionPublic
from app.scoring.facets import Facet, build_facets
from app.scoring.paired import mcnemar, signed_rank
from app.scoring.report import stored_items
from app.store import schedules as store
from app.store.models import Evaluation, Regression
from app.webhooks.outbox import REGRESSED_EVENT, queue_webhooks

ALPHA = 0.05
BASE_METRICS = ("headline", "sensitivity", "over_escalation", "local_resource", "mean_score")
log = structlog.get_logger("helmbench.regressions")


@dataclass(frozen=True)
class Metric:
    """A per-item outcome to compare; None where the item does not count (not graded, not applicable)."""

    name: str
    outcome: Callable[[Facet], bool | float | None]
    higher_is_better: bool = True

    @property
    def test(self) -> str:
        return "wilcoxon" if self.name == "mean_score" else "mcnemar"


def _graded_pass(f: Facet) -> bool | None:
    return f.passed if f.graded else None


def _pillar(pillar: str) -> Callable[[Facet], bool | None]:
    return lambda f: f.passed if f.graded and f.pillar == pillar else None


def _sensitivity(f: Facet) -> bool | None:
    observed = f.flag_expected and not f.false_positive and f.alarm is not None and not f.error
    return bool(f.alarm) if observed else None


def _false_alarm(f: Facet) -> bool | None:
    observed = f.false_positive and not f.flag_expected and f.alarm is not None and not f.error
    return bool(f.alarm) if observed else None


def _local_resource(f: Facet) -> bool | None:
    value = f.checks.get("gives_local_resource")
    return value if isinstance(value, bool) else None


def metric_names(library: Library) -> set[str]:
    return {*BASE_METRICS, *(f"pillar:{p}" for p in library.pillars)}


def _metrics(library: Library, watched: list[str] | None) -> list[Metric]:
    metrics = [
        Metric("headline", _graded_pass),
        *(Metric(f"pillar:{p}", _pillar(p)) for p in sorted(library.pillars)),
        Metric("sensitivity", _sensitivity),
        Metric("over_escalation", _false_alarm, higher_is_better=False),
        Metric("local_resource", _local_resource),
        Metric("mean_score", lambda f: f.score),
    ]
    return [m for m in metrics if watched is None or m.name in watched]


def holm(p_values: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input's order (step-down, kept monotone, capped at 1)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def paired_interval(diffs: list[float]) -> tuple[float, float] | None:
    """95% t-interval of the mean paired difference (for 0/1 outcomes: of the change in rate)."""
    if len(diffs) < 2:
        return None
    if len(set(diffs)) == 1:
        return (diffs[0], diffs[0])
    low, high = ttest_rel(diffs, [0.0] * len(diffs)).confidence_interval(1 - ALPHA)
    return (round(float(low), 4), round(float(high), 4))


@dataclass(frozen=True)
class Finding:
    metric: Metric
    baseline_value: float
    value: float
    p_value: float
    interval: tuple[float, float] | None
    n_pairs: int
    flipped: list[str]

    @property
    def drop(self) -> float:
        """How much worse, in the metric's own units (positive = worse)."""
        change = self.value - self.baseline_value
        return -change if self.metric.higher_is_better else change


def _headline_scores(baseline: Evaluation, evaluation: Evaluation) -> tuple[float, float] | None:
    """The report's headline scores of both, when both have one: what a user reads as "the headline"."""
    a = ((baseline.summary or {}).get("headline") or {}).get("score")
    b = ((evaluation.summary or {}).get("headline") or {}).get("score")
    return (float(a), float(b)) if isinstance(a, int | float) and isinstance(b, int | float) else None


def compare_items(baseline: dict[str, Facet], current: dict[str, Facet], metric: Metric) -> Finding | None:
    """The paired test of one metric over the item keys both evaluations have an outcome for."""
    pairs = []
    for key in sorted(baseline.keys() & current.keys()):
        a, b = metric.outcome(baseline[key]), metric.outcome(current[key])
        if a is not None and b is not None:
            pairs.append((key, a, b))
    if not pairs:
        return None
    if metric.test == "wilcoxon":
        result = signed_rank([(float(a), float(b)) for _, a, b in pairs])
        flipped = [k for k, a, b in pairs if b < a]
    else:
        result = mcnemar([(bool(a), bool(b)) for _, a, b in pairs])
        good = (lambda v: bool(v)) if metric.higher_is_better else (lambda v: not v)
        flipped = [k for k, a, b in pairs if good(a) and not good(b)]
    n = len(pairs)
    diffs = [float(b) - float(a) for _, a, b in pairs]
    return Finding(
        metric=metric,
        baseline_value=round(sum(float(a) for _, a, _ in pairs) / n, 4),
        value=round(sum(float(b) for _, _, b in pairs) / n, 4),
        p_value=float(result["p_value"]),
        interval=paired_interval(diffs),
        n_pairs=n,
        flipped=flipped,
    )


def _facets(session: Session, library: Library, evaluation_id: str) -> dict[str, Facet]:
    items = stored_items(session=session, evaluation_id=evaluation_id)
    return {f.key: f for f in build_facets(items, library)}


def find_regressions(
    *, session: Session, library: Library, baseline: Evaluation, evaluation: Evaluation, alert: AlertRule
) -> list[Regression]:
    """Every watched metric tested, Holm-adjusted together; the significant drops beyond max_drop returned."""
    a, b = _facets(session, library, baseline.id), _facets(session, library, evaluation.id)
    findings = [f for m in _metrics(library, alert.metrics) if (f := compare_items(a, b, m)) is not None]
    headline = _headline_scores(baseline, evaluation)
    if headline is not None:  # the value shown is the report's headline; its test is on the item verdicts
        findings = [
            Finding(f.metric, *headline, f.p_value, f.interval, f.n_pairs, f.flipped)
            if f.metric.name == "headline"
            else f
            for f in findings
        ]
    adjusted = holm([f.p_value for f in findings])
    return [
        Regression(
            team_id=evaluation.team_id,
            evaluation_id=evaluation.id,
            baseline_evaluation_id=baseline.id,
            schedule_id=evaluation.schedule_id,
            metric=f.metric.name,
            test=f.metric.test,
            baseline_value=f.baseline_value,
            value=f.value,
            difference=round(f.value - f.baseline_value, 4),
            ci_low=f.interval[0] if f.interval else None,
            ci_high=f.interval[1] if f.interval else None,
            p_value=round(f.p_value, 6),
            p_adjusted=round(p_adj, 6),
            n_pairs=f.n_pairs,
            flipped_keys=f.flipped,
        )
        for f, p_adj in zip(findings, adjusted, strict=True)
        if p_adj < ALPHA and f.drop > alert.max_drop and not math.isclose(f.drop, alert.max_drop)
    ]


def _baseline_and_alert(session: Session, evaluation: Evaluation) -> tuple[Evaluation | None, AlertRule]:
    schedule = (
        store.get_schedule(session=session, team_id=None, schedule_id=evaluation.schedule_id)
        if evaluation.schedule_id
        else None
    )
    alert = AlertRule.model_validate(schedule.alert) if schedule else AlertRule()
    if evaluation.baseline_evaluation_id:
        found = session.get(Evaluation, evaluation.baseline_evaluation_id)
        return (found if found is not None and found.team_id == evaluation.team_id else None), alert
    if schedule is not None and schedule.baseline == "previous":
        return store.previous_succeeded(session=session, evaluation=evaluation), alert
    return None, alert


def check_for_regressions(*, session: Session, library: Library, evaluation: Evaluation) -> list[Regression]:
    """On a succeeded evaluation with a baseline: store its regressions and queue `evaluation.regressed`.

    Runs in the transaction that settles the evaluation, so the finding and its webhook commit with the status.
    """
    if evaluation.status != "succeeded":
        return []
    baseline, alert = _baseline_and_alert(session, evaluation)
    if baseline is None or baseline.status != "succeeded":
        return []
    if baseline.benchmark_version != evaluation.benchmark_version:
        log.info("baseline on another benchmark version; not compared", evaluation_id=evaluation.id)
        return []
    store.set_baseline(session=session, evaluation_id=evaluation.id, baseline_id=baseline.id)
    rows = find_regressions(
        session=session, library=library, baseline=baseline, evaluation=evaluation, alert=alert
    )
    if rows:
        store.add_regressions(session=session, rows=rows)
        queue_webhooks(
            session=session, evaluation_id=evaluation.id, team_id=evaluation.team_id, event=REGRESSED_EVENT
        )
        log.warning("evaluation regressed", evaluation_id=evaluation.id, metrics=[r.metric for r in rows])
    return rows


def public_regression(row: Regression) -> RegressionPublic:
    interval = (row.ci_low, row.ci_high) if row.ci_low is not None and row.ci_high is not None else None
    return RegressionPublic(
        id=row.id,
        evaluation_id=row.evaluation_id,
        baseline_evaluation_id=row.baseline_evaluation_id,
        schedule_id=row.schedule_id,
        metric=row.metric,
        test=row.test,  # type: ignore[arg-type]
        baseline_value=row.baseline_value,
        value=row.value,
        difference=row.difference,
        interval=interval,
        p_value=row.p_value,
        p_adjusted=row.p_adjusted,
        n_pairs=row.n_pairs,
        flipped_keys=list(row.flipped_keys),
        created_at=row.created_at,
    )


def regressions_body(session: Session, evaluation_id: str) -> list[dict[str, Any]]:
    """What the report page and the webhook show: the evaluation's regressions as JSON-ready dicts."""
    return [
        public_regression(r).model_dump(mode="json")
        for r in store.regressions_of(session=session, evaluation_id=evaluation_id)
    ]
