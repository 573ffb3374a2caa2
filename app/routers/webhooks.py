"""/v1/webhooks: subscribe a URL to evaluation outcomes, list, delete, read the delivery attempts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from app.deps import CurrentKey, SecretsDep, SessionDep, SettingsDep
from app.schemas import WebhookCreate, WebhookCreated, WebhookDeliveryPage, WebhookPublic
from app.services import webhooks as service

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])


@router.post("", status_code=201, response_model=WebhookCreated)
def create_webhook(
    body: WebhookCreate,
    key: CurrentKey,
    session: SessionDep,
    settings: SettingsDep,
    secrets: SecretsDep,
    response: Response,
) -> WebhookCreated:
    created = service.create_webhook(
        session=session, settings=settings, secrets=secrets, team_id=key.team_id, body=body
    )
    session.commit()
    response.headers["Location"] = f"/v1/webhooks/{created.id}"
    return created


@router.get("", response_model=list[WebhookPublic])
def list_webhooks(key: CurrentKey, session: SessionDep) -> list[WebhookPublic]:
    return service.list_webhooks(session=session, team_id=key.team_id)


@router.delete("/{webhook_id}", status_code=204)
def delete_webhook(webhook_id: str, key: CurrentKey, session: SessionDep) -> Response:
    service.delete_webhook(session=session, team_id=key.team_id, webhook_id=webhook_id)
    session.commit()
    return Response(status_code=204)


@router.get("/{webhook_id}/deliveries", response_model=WebhookDeliveryPage)
def list_deliveries(
    webhook_id: str,
    key: CurrentKey,
    session: SessionDep,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> WebhookDeliveryPage:
    return service.list_deliveries(
        session=session, team_id=key.team_id, webhook_id=webhook_id, cursor=cursor, limit=limit
    )
