"""Regressions: a succeeded evaluation compared item by item with its baseline, significant drops recorded.

The tests are app/scoring/watched_metrics.py's (paired by item key, Holm-Bonferroni over the metrics the alert
watches), the same /v1/compare reports and `helmbench gate` decides on: a drop is a regression when its
adjusted p < 0.05 and it is larger than the alert's max_drop.
"""

from __future__ import annotations

from typing import Any

import structlog
from sqlmodel import Session

from app.benchmark.loader import Library
from app.schemas import AlertRule, RegressionPublic
from app.scoring.facets import Facet, build_facets
from app.scoring.headline import behavior_weights
from app.scoring.report import stored_items
from app.scoring.watched_metrics import Metric, is_regression, metrics_for, paired_findings
from app.store import schedules as store
from app.store.models import Evaluation, Regression
from app.store.outbox import REGRESSED_EVENT, queue_webhooks

log = structlog.get_logger("helmbench.regressions")


def metric_names(library: Library) -> set[str]:
    return {m.name for m in metrics_for(library.pillars, behavior_weights(library))}


def _metrics(library: Library, watched: list[str] | None) -> list[Metric]:
    return [
        m
        for m in metrics_for(library.pillars, behavior_weights(library))
        if watched is None or m.name in watched
    ]


def _facets(session: Session, library: Library, evaluation_id: str) -> list[Facet]:
    return build_facets(stored_items(session=session, evaluation_id=evaluation_id), library)


def find_regressions(
    *, session: Session, library: Library, baseline: Evaluation, evaluation: Evaluation, alert: AlertRule
) -> list[Regression]:
    """Every watched metric tested, Holm-adjusted together; the significant drops beyond max_drop returned."""
    findings = paired_findings(
        _facets(session, library, baseline.id),
        _facets(session, library, evaluation.id),
        _metrics(library, alert.metrics),
    )
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
            p_adjusted=round(f.p_adjusted, 6),
            n_pairs=f.n_pairs,
            flipped_keys=f.flipped,
        )
        for f in findings
        if is_regression(f, alert.max_drop)
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
