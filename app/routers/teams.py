"""/v1/teams: platform admins create teams; every key can read its own team."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.deps import AdminKey, CurrentKey, PlatformAdminKey, SessionDep
from app.errors import NotFound
from app.schemas import TeamCreate, TeamCreated, TeamPublic, TeamUpdate
from app.services import keys as key_service

router = APIRouter(prefix="/v1/teams", tags=["teams"])


@router.post("", status_code=201, response_model=TeamCreated)
def create_team(
    body: TeamCreate, admin: PlatformAdminKey, session: SessionDep, response: Response
) -> TeamCreated:
    created = key_service.create_team(session=session, name=body.name)
    session.commit()
    response.headers["Location"] = f"/v1/teams/{created.id}"
    return created


@router.get("", response_model=list[TeamPublic])
def list_teams(key: CurrentKey, session: SessionDep) -> list[TeamPublic]:
    return [key_service.team_public(t) for t in key_service.visible_teams(session=session, actor=key)]


@router.get("/{team_id}", response_model=TeamPublic)
def get_team(team_id: str, key: CurrentKey, session: SessionDep) -> TeamPublic:
    for team in key_service.visible_teams(session=session, actor=key):
        if team.id == team_id:
            return key_service.team_public(team)
    raise NotFound("team_id", f"no team {team_id!r}")


@router.patch("/{team_id}", response_model=TeamPublic)
def update_team(team_id: str, body: TeamUpdate, admin: AdminKey, session: SessionDep) -> TeamPublic:
    """Set how long the team's transcripts are kept (the team's admins, or a platform admin)."""
    team = key_service.update_team(session=session, actor=admin, team_id=team_id, body=body)
    session.commit()
    return team
