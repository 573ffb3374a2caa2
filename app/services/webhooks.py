"""Webhook subscriptions: URL checks and a fresh signing secret at creation; deliveries listed per webhook."""

from __future__ import annotations

import base64
import secrets as random

from sqlmodel import Session

from app.config import Settings
from app.errors import NotFound
from app.net.callable_url import require_callable_url
from app.schemas import (
    WebhookCreate,
    WebhookCreated,
    WebhookDeliveryPage,
    WebhookDeliveryPublic,
    WebhookPublic,
)
from app.security.secrets import SecretBox
from app.store import paging
from app.store import webhooks as webhook_store
from app.store.models import Webhook, WebhookDelivery, WebhookMessage, utcnow
from app.store.outbox import EVENT_TYPES


def new_secret() -> str:
    """A Standard Webhooks secret: whsec_ and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(random.token_bytes(24)).decode()


def public_webhook(hook: Webhook) -> WebhookPublic:
    return WebhookPublic(
        id=hook.id,
        url=hook.url,
        events=hook.events or list(EVENT_TYPES),  # type: ignore[arg-type]
        created_at=hook.created_at,
    )


def create_webhook(
    *, session: Session, settings: Settings, secrets: SecretBox, team_id: str, body: WebhookCreate
) -> WebhookCreated:
    """Creates a subscription after refusing unsafe URLs; the secret is sealed at rest, returned once."""
    require_callable_url(body.url, "url", settings)
    secret = new_secret()
    hook = Webhook(
        team_id=team_id,
        url=body.url,
        events=sorted(set(body.events or [])),
        signing_secret=secrets.encrypt(secret),
    )
    session.add(hook)
    session.flush()
    return WebhookCreated(**public_webhook(hook).model_dump(), secret=secret)


def get_webhook(*, session: Session, team_id: str, webhook_id: str) -> Webhook:
    """The team's live webhook, or a 404 naming the id (another team's webhook is not found, too)."""
    hook = session.get(Webhook, webhook_id)
    if hook is None or hook.team_id != team_id or hook.deleted_at is not None:
        raise NotFound("webhook_id", f"no webhook {webhook_id!r}")
    return hook


def list_webhooks(*, session: Session, team_id: str) -> list[WebhookPublic]:
    return [public_webhook(h) for h in webhook_store.live_webhooks(session=session, team_id=team_id)]


def delete_webhook(*, session: Session, team_id: str, webhook_id: str) -> None:
    """Stops future messages; kept as a row so its delivery history stays readable."""
    hook = get_webhook(session=session, team_id=team_id, webhook_id=webhook_id)
    hook.deleted_at = utcnow()
    session.add(hook)


# Newest first by id: the cursor is the last delivery id seen, and the next page is the ids below it.
BY_DELIVERY: paging.Cursor[int, tuple[WebhookDelivery, WebhookMessage]] = paging.by_number(
    lambda row: row[0].id
)


def list_deliveries(
    *, session: Session, team_id: str, webhook_id: str, cursor: str | None, limit: int
) -> WebhookDeliveryPage:
    """Attempts newest first; the cursor is the last delivery id seen."""
    hook = session.get(Webhook, webhook_id)
    if hook is None or hook.team_id != team_id:
        raise NotFound("webhook_id", f"no webhook {webhook_id!r}")
    rows, next_cursor = paging.page(
        BY_DELIVERY,
        lambda before, n: webhook_store.deliveries(
            session=session, webhook_id=webhook_id, before_id=before, limit=n
        ),
        cursor,
        limit,
    )
    items = [
        WebhookDeliveryPublic(
            id=d.id or 0,
            message_id=d.message_id,
            event_type=m.event_type,
            evaluation_id=m.evaluation_id,
            grade_batch_id=m.grade_batch_id,
            attempt=d.attempt,
            ok=d.ok,
            status_code=d.status_code,
            error=d.error,
            duration_ms=d.duration_ms,
            message_state=m.state,
            created_at=d.created_at,
        )
        for d, m in rows
    ]  # type: ignore[arg-type]
    return WebhookDeliveryPage(items=items, next_cursor=next_cursor)
