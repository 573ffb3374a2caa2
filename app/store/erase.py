"""Erasing what people wrote: an evaluation's or a grade batch's rows deleted (not flagged), in one transaction.

Everything that holds or points at the text goes: items, labels, board figures, regressions, webhook messages
and their delivery records, queued jobs, share links (a link outliving a delete would still open the report).
With `keep_report` the parent row stays, with its report (aggregates, no text), marked so that its results
answer 410.
"""

from __future__ import annotations

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from app.store import tallies
from app.store.evaluations import bump_board_stamp
from app.store.models import (
    BoardFigures,
    Evaluation,
    EvaluationItem,
    GradeBatch,
    GradeBatchLine,
    ItemLabel,
    QueuedJob,
    Regression,
    ShareLink,
    WebhookDelivery,
    WebhookMessage,
    utcnow,
)
from app.store.statuses import ACTIVE


def lock_evaluation(*, session: Session, evaluation_id: str) -> Evaluation | None:
    """The evaluation, its row held until the transaction ends (PostgreSQL): a writer of items waits for the
    erase, and sees it (app/store/items.py)."""
    stmt = select(Evaluation).where(Evaluation.id == evaluation_id).with_for_update()
    return session.exec(stmt).first()


def _drop_messages(session: Session, subject: object) -> None:
    """Webhook messages about the subject, not yet sent or sent, and the record of each attempt."""
    ids = select(WebhookMessage.id).where(subject)  # type: ignore[arg-type]
    session.execute(delete(WebhookDelivery).where(col(WebhookDelivery.message_id).in_(ids)))
    session.execute(delete(WebhookMessage).where(subject))  # type: ignore[arg-type]


def _drop_jobs(session: Session, subject_id: str) -> None:
    """The embedded queue's jobs for it that no worker holds; a held one ends by itself, finding it gone."""
    session.execute(
        delete(QueuedJob).where(col(QueuedJob.subject_id) == subject_id, col(QueuedJob.holder).is_(None))
    )


def erase_evaluation(*, session: Session, evaluation: Evaluation, keep_report: bool) -> None:
    """Delete the evaluation's items and everything about it; with keep_report keep the row and its report."""
    evaluation_id = evaluation.id
    on_board = evaluation.visibility == "public" and evaluation.status == "succeeded"
    session.execute(delete(EvaluationItem).where(col(EvaluationItem.evaluation_id) == evaluation_id))
    tallies.drop(session=session, evaluation_id=evaluation_id)
    session.execute(delete(ItemLabel).where(col(ItemLabel.evaluation_id) == evaluation_id))
    session.execute(delete(BoardFigures).where(col(BoardFigures.evaluation_id) == evaluation_id))
    session.execute(delete(ShareLink).where(col(ShareLink.evaluation_id) == evaluation_id))
    _drop_jobs(session, evaluation_id)
    _drop_messages(session, col(WebhookMessage.evaluation_id) == evaluation_id)
    if keep_report:
        values: dict[str, object] = {
            "transcripts_deleted_at": utcnow(),
            "visibility": "private",
            "share_transcripts": False,
            "stalled": None,
        }
        if evaluation.status in ACTIVE:
            values.update(status="cancelled", finished_at=utcnow())
        session.execute(update(Evaluation).where(col(Evaluation.id) == evaluation_id).values(**values))
    else:
        session.execute(delete(Regression).where(col(Regression.evaluation_id) == evaluation_id))
        session.execute(delete(Evaluation).where(col(Evaluation.id) == evaluation_id))
    if on_board:  # every replica's board sees the change
        bump_board_stamp(session=session, benchmark_version=evaluation.benchmark_version)


def erase_batch(*, session: Session, batch: GradeBatch, keep_report: bool) -> None:
    """Delete the batch's lines and everything about it; with keep_report keep the row and its report."""
    batch_id = batch.id
    session.execute(delete(GradeBatchLine).where(col(GradeBatchLine.batch_id) == batch_id))
    _drop_jobs(session, batch_id)
    _drop_messages(session, col(WebhookMessage.grade_batch_id) == batch_id)
    if keep_report:
        values: dict[str, object] = {"transcripts_deleted_at": utcnow()}
        if batch.status in ACTIVE:
            values.update(status="failed", error="deleted before every line was graded", finished_at=utcnow())
        session.execute(update(GradeBatch).where(col(GradeBatch.id) == batch_id).values(**values))
    else:
        session.execute(delete(GradeBatch).where(col(GradeBatch.id) == batch_id))
