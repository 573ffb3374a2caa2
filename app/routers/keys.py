"""/v1/keys: a team's admins create, list (prefix only) and revoke its API keys."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.deps import AdminKey, SessionDep
from app.http.openapi import problems
from app.schemas import KeyCreate, KeyCreated, KeyPublic
from app.services import keys as key_service

router = APIRouter(prefix="/v1/keys", tags=["keys"])


@router.post("", status_code=201, response_model=KeyCreated, responses=problems(404))
def create_key(body: KeyCreate, admin: AdminKey, session: SessionDep, response: Response) -> KeyCreated:
    created = key_service.create_api_key(session=session, actor=admin, body=body)
    session.commit()
    response.headers["Location"] = f"/v1/keys/{created.id}"
    return created


@router.get("", response_model=list[KeyPublic], responses=problems(404))
def list_keys(
    admin: AdminKey, session: SessionDep, team_id: str | None = None, include_revoked: bool = False
) -> list[KeyPublic]:
    return key_service.list_api_keys(
        session=session, actor=admin, team_id=team_id, include_revoked=include_revoked
    )


@router.get("/{key_id}", response_model=KeyPublic)
def get_key(key_id: str, admin: AdminKey, session: SessionDep) -> KeyPublic:
    return key_service.key_public(key_service.get_api_key(session=session, actor=admin, key_id=key_id))


@router.delete("/{key_id}", response_model=KeyPublic, responses=problems(409))
def revoke_key(key_id: str, admin: AdminKey, session: SessionDep) -> KeyPublic:
    revoked = key_service.revoke_api_key(session=session, actor=admin, key_id=key_id)
    session.commit()
    return revoked
