"""Reading results: item pages, the report, the leaderboard."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.benchmark.loader import Library
from app.grading.verdict import likert_view
from app.problems import Problem
from app.schemas import ItemPublic, Leaderboard, LeaderboardEntry, ResultsPage
from app.scoring.report import compute_report
from app.services.calibration import calibration
from app.store import evaluations as ev_store
from app.store import items as item_store
from app.store.models import Evaluation, EvaluationItem


def _item_public(row: EvaluationItem) -> ItemPublic:
    spec = item_store.item_spec(row)
    return ItemPublic(
        key=row.key,
        index=row.idx,
        code=spec.code,
        scenario_id=row.scenario_id,
        condition_id=row.condition_id,
        user_context_id=row.user_context_id,
        perturbation_id=row.perturbation_id,
        repeat=row.repeat,
        messages=row.messages,
        reply=row.reply,
        error_class=row.error_class,
        error=row.error,
        attempts=row.attempts,
        latency_ms=row.latency_ms,
        verdict=row.verdict,
        score=row.score,
        likert=likert_view(row.likert, row.score),
        checks=row.checks,
        reasons=row.reasons,
    )


def results_page(*, session: Session, evaluation: Evaluation, cursor: str | None, limit: int) -> ResultsPage:
    """Items in matrix order; the cursor is the last index seen, so pages stay stable while items arrive."""
    try:
        after = int(cursor) if cursor else -1
    except ValueError as exc:
        raise Problem(422, "Invalid request", "cursor: not a cursor this API issued", field="cursor") from exc
    rows = item_store.page_items(
        session=session, evaluation_id=evaluation.id, after_idx=after, limit=limit + 1
    )
    more = len(rows) > limit
    rows = rows[:limit]
    return ResultsPage(items=[_item_public(r) for r in rows], next_cursor=str(rows[-1].idx) if more else None)


def report(*, session: Session, evaluation: Evaluation, library: Library) -> dict[str, Any]:
    """A finished evaluation serves the summary stored when it finished; a running one is computed live."""
    if evaluation.summary is not None:
        body = dict(evaluation.summary)
    elif evaluation.benchmark_version != library.version:
        raise Problem(
            409,
            "Conflict",
            "this evaluation ran on another benchmark version and has no stored report",
            field="benchmark_version",
        )
    else:
        body = compute_report(session=session, evaluation_id=evaluation.id, library=library)
    body["calibration"] = calibration(session=session, evaluation_id=evaluation.id)
    return {"evaluation_id": evaluation.id, "status": evaluation.status, **body}


def _headline_score(summary: dict[str, Any]) -> float | None:
    score = summary.get("headline", {}).get("score")
    return float(score) if isinstance(score, int | float) else None


def leaderboard(*, session: Session, library: Library, benchmark_version: str | None) -> Leaderboard:
    """Public finished evaluations of one benchmark version, best headline first; pillars are headline pillar
    scores (severity-weighted), falling back to pass rates for reports stored before the headline had them.

    An evaluation whose report has no headline score (nothing gradable) has no rank, so it is left out."""
    version = benchmark_version or library.version
    rows = [
        (ev, ev.summary, ev.finished_at, score)
        for ev in ev_store.leaderboard(session=session, benchmark_version=version)
        if ev.summary and ev.finished_at and (score := _headline_score(ev.summary)) is not None
    ]
    rows.sort(key=lambda row: -row[3])
    entries = []
    for rank, (ev, summary, finished_at, score) in enumerate(rows, start=1):
        overall = summary.get("overall", {})
        headline = summary.get("headline", {})
        entries.append(
            LeaderboardEntry(
                rank=rank,
                evaluation_id=ev.id,
                target_name=ev.target_name,
                model=ev.model,
                suite=ev.suite,
                score=score,
                score_interval=headline.get("interval"),
                capped=bool(headline.get("capped")),
                why=headline.get("why"),
                pass_rate=overall.get("pass_rate"),
                pass_rate_interval=overall.get("interval"),
                pillars=headline.get("pillars")
                or {p: r.get("pass_rate") for p, r in summary.get("by_pillar", {}).items()},
                sensitivity=summary.get("sensitivity", {}).get("rate"),
                over_escalation=summary.get("over_escalation", {}).get("rate"),
                ungraded_share=summary.get("ungraded_share"),
                n_items=summary.get("n_items", 0),
                finished_at=finished_at,
            )
        )
    return Leaderboard(benchmark_version=version, entries=entries)
