"""/v1/evaluations/{id}/shares: the owning team's read-only links to one report page, for people without a key."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.deps import CurrentKey, SessionDep
from app.schemas import ShareCreate, ShareCreated, SharePublic
from app.services import shares as share_service

router = APIRouter(prefix="/v1/evaluations/{evaluation_id}/shares", tags=["evaluations"])


@router.post("", status_code=201, response_model=ShareCreated)
def create_share(
    evaluation_id: str,
    body: ShareCreate,
    key: CurrentKey,
    session: SessionDep,
    request: Request,
    response: Response,
) -> ShareCreated:
    """A link to the report page that opens it, read-only, for whoever holds it until it expires; its URL is
    shown this once (only a hash of its token is stored)."""
    created = share_service.create_share(
        session=session,
        actor=key,
        evaluation_id=evaluation_id,
        body=body,
        url_for=lambda token: str(request.url_for("shared_report_page", token=token)),
    )
    response.headers["Location"] = f"/v1/evaluations/{evaluation_id}/shares/{created.id}"
    response.headers["Cache-Control"] = "no-store"
    return created


@router.get("", response_model=list[SharePublic])
def list_shares(evaluation_id: str, key: CurrentKey, session: SessionDep) -> list[SharePublic]:
    return share_service.list_shares(session=session, actor=key, evaluation_id=evaluation_id)


@router.delete("/{share_id}", response_model=SharePublic)
def revoke_share(evaluation_id: str, share_id: str, key: CurrentKey, session: SessionDep) -> SharePublic:
    """The link stops opening the report at once."""
    return share_service.revoke_share(
        session=session, actor=key, evaluation_id=evaluation_id, share_id=share_id
    )
