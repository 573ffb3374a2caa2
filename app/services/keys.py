"""Teams and API keys: who may create, list and revoke which keys."""

from __future__ import annotations

from sqlmodel import Session

from app.errors import Conflict, NotFound
from app.schemas import KeyCreate, KeyCreated, KeyPublic, TeamCreated, TeamPublic, TeamUpdate
from app.store import keys as key_store
from app.store.models import ApiKey, Team


def is_platform_admin(*, session: Session, key: ApiKey) -> bool:
    """Admin keys of the platform team manage every team."""
    team = session.get(Team, key.team_id)
    return key.role == "admin" and team is not None and team.platform


def key_public(key: ApiKey) -> KeyPublic:
    return KeyPublic(
        id=key.id,
        team_id=key.team_id,
        name=key.name,
        role=key.role,  # type: ignore[arg-type]
        prefix=key.prefix,
        created_at=key.created_at,
        revoked_at=key.revoked_at,
    )


def team_public(team: Team) -> TeamPublic:
    return TeamPublic(
        id=team.id,
        name=team.name,
        platform=team.platform,
        created_at=team.created_at,
        transcript_retention_days=team.transcript_retention_days,
    )


def update_team(*, session: Session, actor: ApiKey, team_id: str, body: TeamUpdate) -> TeamPublic:
    """A team's admins (or a platform admin) change its settings: the fields given, the rest kept."""
    team = key_store.get_team(
        session=session, team_id=_team_for(session=session, actor=actor, team_id=team_id)
    )
    if team is None:
        raise NotFound("team_id", f"no team {team_id!r}")
    if "transcript_retention_days" in body.model_fields_set:
        team.transcript_retention_days = body.transcript_retention_days
        session.add(team)
        session.flush()
    return team_public(team)


def _team_for(*, session: Session, actor: ApiKey, team_id: str | None) -> str:
    """The team an admin acts on: its own, or (platform admins only) the one named; others' teams are 404."""
    if team_id is None or team_id == actor.team_id:
        return actor.team_id
    exists = key_store.get_team(session=session, team_id=team_id) is not None
    if not (exists and is_platform_admin(session=session, key=actor)):
        raise NotFound("team_id", f"no team {team_id!r}")
    return team_id


def create_api_key(*, session: Session, actor: ApiKey, body: KeyCreate) -> KeyCreated:
    """Creates a key in the admin's team (a platform admin may name another); the raw key is shown once."""
    team_id = _team_for(session=session, actor=actor, team_id=body.team_id)
    key, raw = key_store.create_key(session=session, team_id=team_id, name=body.name, role=body.role)
    return KeyCreated(**key_public(key).model_dump(), key=raw)


def list_api_keys(
    *, session: Session, actor: ApiKey, team_id: str | None, include_revoked: bool
) -> list[KeyPublic]:
    """Lists a team's keys by prefix; the key itself is never stored, so never listed."""
    team = _team_for(session=session, actor=actor, team_id=team_id)
    return [
        key_public(k)
        for k in key_store.list_keys(session=session, team_id=team, include_revoked=include_revoked)
    ]


def get_api_key(*, session: Session, actor: ApiKey, key_id: str) -> ApiKey:
    """Returns a key the admin may manage; another team's key is 404, as if it did not exist."""
    key = key_store.get_key(session=session, team_id=actor.team_id, key_id=key_id)
    if key is None and is_platform_admin(session=session, key=actor):
        key = session.get(ApiKey, key_id)
    if key is None:
        raise NotFound("key_id", f"no key {key_id!r}")
    return key


def revoke_api_key(*, session: Session, actor: ApiKey, key_id: str) -> KeyPublic:
    """Revokes a key at once; revoking twice is harmless. The last active admin key of a team stays."""
    key = get_api_key(session=session, actor=actor, key_id=key_id)
    if key.role == "admin" and key.revoked_at is None:
        admins = [k for k in key_store.list_keys(session=session, team_id=key.team_id) if k.role == "admin"]
        if len(admins) <= 1:
            detail = "this is the team's last admin key; create another admin key first"
            raise Conflict("key_id", detail)
    key_store.revoke_key(session=session, key=key)
    return key_public(key)


def create_team(*, session: Session, name: str) -> TeamCreated:
    """Creates a team and its first admin key (shown once), which then manages the team's other keys."""
    team = key_store.create_team(session=session, name=name)
    key, raw = key_store.create_key(session=session, team_id=team.id, name="admin", role="admin")
    admin_key = KeyCreated(**key_public(key).model_dump(), key=raw)
    return TeamCreated(**team_public(team).model_dump(), admin_key=admin_key)


def visible_teams(*, session: Session, actor: ApiKey) -> list[Team]:
    """A platform admin sees every team; any other key sees its own."""
    if is_platform_admin(session=session, key=actor):
        return key_store.list_teams(session=session)
    team = key_store.get_team(session=session, team_id=actor.team_id)
    return [team] if team is not None else []
