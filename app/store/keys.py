"""Teams and API keys. Keys are stored as SHA-256 hashes; only the prefix is kept readable."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from sqlmodel import Session, col, select

from app.store.browser_sessions import delete_sessions_of_key
from app.store.models import ApiKey, Team, utcnow
from app.store.roles import ROLES

DEFAULT_TEAM_NAME = "default"
KEY_PREFIX = "hb_"


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def get_or_create_default_team(*, session: Session) -> Team:
    """Returns the platform team of the embedded default, creating it once."""
    team = session.exec(
        select(Team).where(col(Team.platform).is_(True)).order_by(col(Team.created_at))
    ).first()
    if team is None:
        team = session.exec(select(Team).where(Team.name == DEFAULT_TEAM_NAME)).first()
    if team is None:
        team = Team(name=DEFAULT_TEAM_NAME, platform=True)
    team.platform = True
    session.add(team)
    session.flush()
    return team


def create_team(*, session: Session, name: str) -> Team:
    team = Team(name=name)
    session.add(team)
    session.flush()
    return team


def get_team(*, session: Session, team_id: str) -> Team | None:
    return session.get(Team, team_id)


def find_team(*, session: Session, ref: str) -> Team | None:
    """Returns the team with this id, else the oldest team with this name."""
    team = session.get(Team, ref)
    if team is not None:
        return team
    return session.exec(select(Team).where(Team.name == ref).order_by(col(Team.created_at))).first()


def list_teams(*, session: Session) -> list[Team]:
    return list(session.exec(select(Team).order_by(col(Team.created_at), col(Team.id))))


def create_key(*, session: Session, team_id: str, name: str, role: str = "member") -> tuple[ApiKey, str]:
    """Creates a key and returns it with the raw secret, which is shown once and never stored."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(team_id=team_id, name=name, role=role, prefix=raw[:10], key_hash=hash_key(raw))
    session.add(key)
    session.flush()
    return key, raw


def find_active_key(*, session: Session, raw: str) -> ApiKey | None:
    key = session.exec(select(ApiKey).where(ApiKey.key_hash == hash_key(raw))).first()
    return key if key is not None and key.revoked_at is None else None


def get_key(*, session: Session, team_id: str, key_id: str) -> ApiKey | None:
    """Returns the key if it belongs to that team (another team's key is simply not found)."""
    key = session.get(ApiKey, key_id)
    return key if key is not None and key.team_id == team_id else None


def list_keys(*, session: Session, team_id: str, include_revoked: bool = False) -> list[ApiKey]:
    stmt = select(ApiKey).where(ApiKey.team_id == team_id)
    if not include_revoked:
        stmt = stmt.where(col(ApiKey.revoked_at).is_(None))
    return list(session.exec(stmt.order_by(col(ApiKey.created_at), col(ApiKey.id))))


def revoke_key(*, session: Session, key: ApiKey) -> None:
    """Revoked at once, and every browser it signed in is signed out."""
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        session.add(key)
    delete_sessions_of_key(session=session, key_id=key.id)


def ensure_admin_key(*, session: Session, key_file: Path) -> str | None:
    """With no key at all yet, make the platform admin key, write it 0600 to key_file; return it."""
    if session.exec(select(ApiKey)).first() is not None:
        return None
    team = get_or_create_default_team(session=session)
    _, raw = create_key(session=session, team_id=team.id, name="admin", role="admin")
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.touch(mode=0o600, exist_ok=True)
    key_file.chmod(0o600)
    key_file.write_text(raw + "\n", encoding="utf-8")
    return raw
