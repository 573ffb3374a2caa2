"""Teams and API keys. Keys are stored as SHA-256 hashes; only the prefix is kept readable."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from sqlmodel import Session, select

from app.store.models import ApiKey, Team, utcnow

DEFAULT_TEAM_NAME = "default"
KEY_PREFIX = "hb_"


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def get_or_create_default_team(*, session: Session) -> Team:
    """Returns the team of the embedded default, creating it once."""
    team = session.exec(select(Team).where(Team.name == DEFAULT_TEAM_NAME)).first()
    if team is None:
        team = Team(name=DEFAULT_TEAM_NAME)
        session.add(team)
        session.flush()
    return team


def create_key(*, session: Session, team_id: str, name: str, role: str = "member") -> tuple[ApiKey, str]:
    """Creates a key and returns it with the raw secret, which is shown once and never stored."""
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(team_id=team_id, name=name, role=role, prefix=raw[:10], key_hash=hash_key(raw))
    session.add(key)
    session.flush()
    return key, raw


def find_active_key(*, session: Session, raw: str) -> ApiKey | None:
    key = session.exec(select(ApiKey).where(ApiKey.key_hash == hash_key(raw))).first()
    return key if key is not None and key.revoked_at is None else None


def revoke_key(*, session: Session, key: ApiKey) -> None:
    key.revoked_at = utcnow()
    session.add(key)


def ensure_admin_key(*, session: Session, key_file: Path) -> str | None:
    """On first start with no key at all, make an admin key, write it 0600 to key_file and return it."""
    if session.exec(select(ApiKey)).first() is not None:
        return None
    team = get_or_create_default_team(session=session)
    _, raw = create_key(session=session, team_id=team.id, name="admin", role="admin")
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.touch(mode=0o600, exist_ok=True)
    key_file.chmod(0o600)
    key_file.write_text(raw + "\n", encoding="utf-8")
    return raw
