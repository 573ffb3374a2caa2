"""The outbox: one message per subscribed webhook, written in the transaction that settles the status, then
leased by one sender at a time, with a row per attempt."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from app.store.models import Evaluation, WebhookDelivery, WebhookMessage, new_id, utcnow
from app.store.webhooks import live_webhooks

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
    hooks = live_webhooks(session=session, team_id=team_id)
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
    stmt = (
        insert(WebhookMessage)
        .values(rows)
        .on_conflict_do_nothing(index_elements=["webhook_id", subject, "event_type"])
    )
    session.execute(stmt)  # a message already queued for this webhook and event stays as it is


def _unleased(now: datetime) -> ColumnElement[bool]:
    """Not held by a sender: never leased, or its lease has lapsed."""
    return or_(col(WebhookMessage.lease_until).is_(None), col(WebhookMessage.lease_until) < now)


def due_messages(*, session: Session, now: datetime, limit: int) -> list[WebhookMessage]:
    """Pending messages whose next attempt is due and that no sender holds, the longest waiting first."""
    stmt = (
        select(WebhookMessage)
        .where(WebhookMessage.state == "pending", col(WebhookMessage.next_attempt_at) <= now, _unleased(now))
        .order_by(col(WebhookMessage.next_attempt_at))
        .limit(limit)
    )
    return list(session.exec(stmt).all())


def lease_message(*, session: Session, message_id: str, now: datetime, lease_s: float) -> bool:
    """Holds the message for lease_s with a guarded update; False if another sender got it first."""
    won = session.execute(
        update(WebhookMessage)
        .where(col(WebhookMessage.id) == message_id, col(WebhookMessage.state) == "pending", _unleased(now))
        .values(lease_until=now + timedelta(seconds=lease_s))
    ).rowcount  # type: ignore[attr-defined]
    return bool(won)


def record_attempt(
    *, session: Session, attempt: WebhookDelivery, state: str, retry_at: datetime, now: datetime
) -> None:
    """Writes the attempt and moves its message on: released, with its new state and next attempt time."""
    session.add(attempt)
    session.execute(
        update(WebhookMessage)
        .where(col(WebhookMessage.id) == attempt.message_id)
        .values(
            attempts=attempt.attempt,
            state=state,
            lease_until=None,
            next_attempt_at=retry_at,
            finished_at=now if state != "pending" else None,
        )
    )
