"""Browser sessions: a cookie's token maps to the API key that signed in; only the token's hash is stored."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import delete
from sqlmodel import Session, col, select

from app.store.models import ApiKey, BrowserSession, utcnow


def token_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_session(*, session: Session, key: ApiKey, raw: str, expires_at: datetime) -> BrowserSession:
    row = BrowserSession(
        token_hash=token_hash(raw), key_id=key.id, team_id=key.team_id, expires_at=expires_at
    )
    session.add(row)
    session.flush()
    return row


def active_key(*, session: Session, raw: str) -> ApiKey | None:
    """The key behind an unexpired session whose key is not revoked; anything else reads as signed out."""
    stmt = (
        select(ApiKey)
        .join(BrowserSession, col(BrowserSession.key_id) == col(ApiKey.id))
        .where(
            BrowserSession.token_hash == token_hash(raw),
            col(BrowserSession.expires_at) > utcnow(),
            col(ApiKey.revoked_at).is_(None),
        )
    )
    return session.exec(stmt).first()


def delete_session(*, session: Session, raw: str) -> None:
    session.execute(delete(BrowserSession).where(col(BrowserSession.token_hash) == token_hash(raw)))


def delete_sessions_of_key(*, session: Session, key_id: str) -> None:
    """A revoked key signs out every browser it signed in."""
    session.execute(delete(BrowserSession).where(col(BrowserSession.key_id) == key_id))


def delete_expired(*, session: Session) -> None:
    session.execute(delete(BrowserSession).where(col(BrowserSession.expires_at) <= utcnow()))
