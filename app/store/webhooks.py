"""Webhook subscriptions and their delivery attempts (a deleted webhook stays a row, so its history reads)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from app.store.models import Webhook, WebhookDelivery, WebhookMessage


def live_webhooks(*, session: Session, team_id: str) -> list[Webhook]:
    """The team's webhooks not deleted, oldest first."""
    stmt = select(Webhook).where(Webhook.team_id == team_id, col(Webhook.deleted_at).is_(None))
    return list(session.exec(stmt.order_by(col(Webhook.created_at))))


def deliveries(
    *, session: Session, webhook_id: str, before_id: int | None, limit: int
) -> list[tuple[WebhookDelivery, WebhookMessage]]:
    """Up to `limit` attempts at the webhook with an id below `before_id`, newest first, each with its message."""
    stmt = (
        select(WebhookDelivery, WebhookMessage)
        .join(WebhookMessage, col(WebhookMessage.id) == col(WebhookDelivery.message_id))
        .where(WebhookDelivery.webhook_id == webhook_id)
    )
    if before_id is not None:
        stmt = stmt.where(col(WebhookDelivery.id) < before_id)
    return list(session.exec(stmt.order_by(col(WebhookDelivery.id).desc()).limit(limit)))
