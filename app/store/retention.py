"""Retention: the text of finished evaluations' items and batches' lines removed once it is old enough; the
grades, scores and stored reports stay."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.store.models import Evaluation, EvaluationItem, GradeBatch, GradeBatchLine, Team
from app.store.statuses import BATCH_DONE, TERMINAL


def team_retention(*, session: Session) -> dict[str, int | None]:
    """Each team's own retention in days (None: the service default applies)."""
    return dict(session.exec(select(Team.id, Team.transcript_retention_days)).all())  # type: ignore[arg-type]


def expired_evaluations(
    *, session: Session, team_id: str, finished_before: datetime, limit: int
) -> list[str]:
    """The team's evaluations that finished before the cutoff and still hold their items' text."""
    stmt = (
        select(Evaluation.id)
        .where(
            Evaluation.team_id == team_id,
            col(Evaluation.status).in_(TERMINAL),
            col(Evaluation.finished_at) < finished_before,
            col(Evaluation.transcripts_removed_after_days).is_(None),
            col(Evaluation.transcripts_deleted_at).is_(None),
        )
        .limit(limit)
    )
    return list(session.exec(stmt))


def expired_batches(*, session: Session, team_id: str, finished_before: datetime, limit: int) -> list[str]:
    """The team's grade batches that finished before the cutoff and still hold their lines' transcripts."""
    stmt = (
        select(GradeBatch.id)
        .where(
            GradeBatch.team_id == team_id,
            col(GradeBatch.status).in_(BATCH_DONE),
            col(GradeBatch.finished_at) < finished_before,
            col(GradeBatch.transcripts_removed_after_days).is_(None),
            col(GradeBatch.transcripts_deleted_at).is_(None),
        )
        .limit(limit)
    )
    return list(session.exec(stmt))


def remove_evaluation_text(*, session: Session, evaluation_id: str, days: int) -> None:
    """Messages, replies, error texts and raw judge answers go; verdicts, scores, checks and reasons stay."""
    session.execute(
        update(EvaluationItem)
        .where(col(EvaluationItem.evaluation_id) == evaluation_id)
        .values(messages=[], reply=None, error=None, judge=None)
    )
    session.execute(
        update(Evaluation)
        .where(col(Evaluation.id) == evaluation_id)
        .values(transcripts_removed_after_days=days, share_transcripts=False)
    )


def remove_batch_text(*, session: Session, batch_id: str, days: int) -> None:
    """The lines' transcripts (and a refused line's reason, which may quote it) go; their grades stay."""
    lines = col(GradeBatchLine.batch_id) == batch_id
    session.execute(update(GradeBatchLine).where(lines).values(transcript=None))
    session.execute(
        update(GradeBatchLine)
        .where(lines, col(GradeBatchLine.error).is_not(None))
        .values(error=f"the line's text was removed after {days} days")
    )
    session.execute(
        update(GradeBatch).where(col(GradeBatch.id) == batch_id).values(transcripts_removed_after_days=days)
    )
