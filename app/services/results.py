"""Reading results: item pages, the report, the leaderboard."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.benchmark.loader import Library
from app.errors import Conflict, Gone
from app.grading.grades.verdict import likert_view
from app.schemas import ItemPublic, Leaderboard, LeaderboardEntry, ResultsPage
from app.scoring.leaderboard import Board, BoardQuery, compute_board
from app.scoring.report import compute_report
from app.services.board_query import entry_json, page
from app.services.calibration import calibration
from app.store import items as item_store
from app.store import paging
from app.store.item_filter import ItemFilter
from app.store.models import Evaluation, EvaluationItem, GradeBatch


def _item_public(row: EvaluationItem) -> ItemPublic:
    spec = item_store.item_spec(row)
    return ItemPublic(
        key=row.key,
        index=row.idx,
        code=spec.code,
        item_kind=row.item_kind,
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


BY_INDEX: paging.Cursor[int, EvaluationItem] = paging.by_number(lambda item: item.idx)


def results_page(
    *,
    session: Session,
    evaluation: Evaluation,
    cursor: str | None,
    limit: int,
    where: ItemFilter | None = None,
) -> ResultsPage:
    """Items in matrix order, only those `where` selects; the cursor is the last index seen, so pages stay stable
    while items arrive and a filtered page never repeats or skips a matching item."""
    rows, next_cursor = item_rows(
        session=session, evaluation=evaluation, cursor=cursor, limit=limit, where=where
    )
    return ResultsPage(items=[_item_public(r) for r in rows], next_cursor=next_cursor)


def item_rows(
    *,
    session: Session,
    evaluation: Evaluation,
    cursor: str | None,
    limit: int,
    where: ItemFilter | None = None,
) -> tuple[list[EvaluationItem], str | None]:
    """One page of stored items and the cursor of the next, as the JSON results and the explorer page read them."""
    return paging.page(
        BY_INDEX,
        lambda after, n: item_store.page_items(
            session=session,
            evaluation_id=evaluation.id,
            after_idx=-1 if after is None else after,
            limit=n,
            where=where,
        ),
        cursor,
        limit,
    )


def report(*, session: Session, evaluation: Evaluation, library: Library) -> dict[str, Any]:
    """A finished evaluation serves the summary stored when it finished; a running one is computed live."""
    if evaluation.summary is not None:
        body = dict(evaluation.summary)
    elif evaluation.transcripts_deleted_at is not None:
        raise Gone("evaluation_id", "its transcripts were deleted before a report was made")
    elif evaluation.benchmark_version != library.version:
        raise Conflict(
            "benchmark_version", "this evaluation ran on another benchmark version and has no stored report"
        )
    else:
        body = compute_report(
            session=session, evaluation_id=evaluation.id, library=library, suite=evaluation.suite
        )
    body["calibration"] = calibration(session=session, evaluation_id=evaluation.id)
    return {
        "evaluation_id": evaluation.id,
        "status": evaluation.status,
        **body,
        **transcripts_note(evaluation),
    }


def transcripts_note(subject: Evaluation | GradeBatch) -> dict[str, str]:
    """What became of the text behind a report: removed by retention, or deleted with the report kept."""
    if subject.transcripts_deleted_at is not None:
        return {"transcripts": "deleted; only this report was kept"}
    if subject.transcripts_removed_after_days is not None:
        return {"transcripts": f"transcripts removed after {subject.transcripts_removed_after_days} days"}
    return {}


def leaderboard(
    *, session: Session, library: Library, benchmark_version: str | None, query: BoardQuery | None = None
) -> Leaderboard:
    """The whole board computed now from the store, uncached: public finished evaluations of one benchmark
    version, ranked by app/scoring/board.py (the API serves the same board from its cache)."""
    query = query or BoardQuery(version=benchmark_version)
    board = compute_board(session=session, library=library, query=query)
    return leaderboard_page(board, cursor=None, limit=len(board.rows) or 1)


def leaderboard_page(board: Board, *, cursor: str | None, limit: int) -> Leaderboard:
    rows, next_cursor = page(board.rows, cursor, limit)
    return Leaderboard(
        benchmark_version=board.version,
        entries=[LeaderboardEntry(**entry_json(rank, e)) for rank, e in rows],
        pillar_names=board.pillar_names,
        total=len(board.rows),
        hidden=board.hidden,
        next_cursor=next_cursor,
    )
