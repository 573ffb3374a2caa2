"""The outbox: one message per subscribed webhook, written in the transaction that settles the status."""

from __future__ import annotations

from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from app.store.models import Evaluation, Webhook, WebhookMessage, new_id, utcnow

SETTLED_EVENTS = (
    "evaluation.succeeded",
    "evaluation.failed",
    "evaluation.cancelled",
    "evaluation.stopped_by_budget",
)
# A running evaluation that has written nothing for a while (app/runner/reconcile.py); sent once per evaluation.
STALLED_EVENT = "evaluation.stalled"
# A succeeded evaluation that dropped from its baseline (app/services/regressions.py); queued with its success.
REGRESSED_EVENT = "evaluation.regressed"
# A grade batch whose every line is graded or refused (app/store/grade_batches.py).
BATCH_COMPLETED_EVENT = "grade_batch.completed"
EVENT_TYPES = (*SETTLED_EVENTS, STALLED_EVENT, REGRESSED_EVENT, BATCH_COMPLETED_EVENT)


def queue_settled_webhooks(*, session: Session, evaluation_id: str) -> None:
    """If the evaluation is now terminal, queue its event for each subscribed webhook; safe to call twice.

    Called inside the transaction that changes the status, so the status and its messages commit together:
    a crash after the commit leaves pending messages that any API process delivers later; a rollback, neither.
    """
    stmt = select(Evaluation.status, Evaluation.team_id).where(Evaluation.id == evaluation_id)
    row = session.exec(stmt).first()
    if row is None or f"evaluation.{row[0]}" not in SETTLED_EVENTS:
        return
    queue_webhooks(session=session, evaluation_id=evaluation_id, team_id=row[1], event=f"evaluation.{row[0]}")


def queue_webhooks(
    *,
    session: Session,
    evaluation_id: str | None = None,
    team_id: str,
    event: str,
    grade_batch_id: str | None = None,
) -> None:
    """Queue `event` about an evaluation or a grade batch for each of the team's webhooks subscribed to it (all
    events if it named none)."""
    subject = "grade_batch_id" if grade_batch_id else "evaluation_id"
    hooks = session.exec(select(Webhook).where(Webhook.team_id == team_id, col(Webhook.deleted_at).is_(None)))
    rows = [
        {
            "id": new_id("msg"),
            "webhook_id": hook.id,
            "team_id": team_id,
            "evaluation_id": evaluation_id,
            "grade_batch_id": grade_batch_id,
            "event_type": event,
            "state": "pending",
            "attempts": 0,
            "next_attempt_at": utcnow(),
            "created_at": utcnow(),
        }
        for hook in hooks
        if not hook.events or event in hook.events
    ]
    if not rows:
        return
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    queue = (
        insert(WebhookMessage)
        .values(rows)
        .on_conflict_do_nothing(index_elements=["webhook_id", subject, "event_type"])
    )
    session.execute(queue)  # a message already queued for this webhook and event stays as it is
