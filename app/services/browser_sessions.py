"""Signing a browser in with an API key: a random cookie token, stored hashed, stands for the key until it
expires, is signed out, or the key is revoked. The key itself is checked once, at sign-in, and never kept."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from app.store import browser_sessions as store
from app.store.keys import find_active_key
from app.store.models import ApiKey, Team, utcnow


@dataclass(frozen=True)
class Started:
    token: str  # goes in the cookie, nowhere else
    expires_at: datetime


def start(*, session: Session, key: ApiKey, hours: int) -> Started:
    """A new session for a key already checked (app/deps.admit_key); expired ones are swept on the way."""
    store.delete_expired(session=session)
    raw = secrets.token_urlsafe(32)
    expires_at = utcnow() + timedelta(hours=hours)
    store.create_session(session=session, key=key, raw=raw, expires_at=expires_at)
    session.commit()
    return Started(token=raw, expires_at=expires_at)


def key_for(*, session: Session, raw: str) -> ApiKey | None:
    """The active key a sign-in form was given, if any (the edge then admits it as a Bearer key is admitted)."""
    return find_active_key(session=session, raw=raw)


def signed_in_key(*, session: Session, token: str) -> ApiKey | None:
    """The key a cookie stands for; an unknown, expired or revoked one reads as signed out."""
    return store.active_key(session=session, raw=token)


def end(*, session: Session, token: str) -> None:
    store.delete_session(session=session, raw=token)
    session.commit()


def team_name(*, session: Session, key: ApiKey) -> str:
    team = session.get(Team, key.team_id)
    return team.name if team is not None else key.team_id


def csrf_token(token: str) -> str:
    """The forms' token, derived from the session's: a page of another site can read neither, and nothing more
    needs storing (the cookie is sent with every POST, so the server recomputes it)."""
    return hashlib.sha256(b"helmbench-csrf:" + token.encode()).hexdigest()


def csrf_ok(token: str, sent: str | None) -> bool:
    return sent is not None and hmac.compare_digest(csrf_token(token), sent)
