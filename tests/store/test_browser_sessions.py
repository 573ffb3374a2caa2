"""Browser sessions in the store: a token finds its key only while unexpired and unrevoked; only hashes kept."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, select

from app.config import Settings
from app.store import browser_sessions
from app.store.db import make_engine
from app.store.keys import create_key, create_team, revoke_key
from app.store.migrate import upgrade
from app.store.models import BrowserSession, utcnow


def test_a_session_finds_its_key_until_it_expires_or_the_key_is_revoked(settings: Settings) -> None:
    upgrade(settings)
    engine = make_engine(settings)
    with Session(engine) as session:
        team = create_team(session=session, name="t")
        key, _ = create_key(session=session, team_id=team.id, name="k", role="read-only")
        later, earlier = utcnow() + timedelta(hours=1), utcnow() - timedelta(seconds=1)
        browser_sessions.create_session(session=session, key=key, raw="live-token", expires_at=later)
        browser_sessions.create_session(session=session, key=key, raw="old-token", expires_at=earlier)
        session.commit()

        assert browser_sessions.active_key(session=session, raw="live-token") == key
        assert browser_sessions.active_key(session=session, raw="old-token") is None
        assert browser_sessions.active_key(session=session, raw="no-such-token") is None
        stored = {row.token_hash for row in session.exec(select(BrowserSession))}
        assert "live-token" not in stored and browser_sessions.token_hash("live-token") in stored

        browser_sessions.delete_expired(session=session)
        assert len(session.exec(select(BrowserSession)).all()) == 1
        revoke_key(session=session, key=key)
        session.commit()
        assert browser_sessions.active_key(session=session, raw="live-token") is None
        assert session.exec(select(BrowserSession)).all() == []
    engine.dispose()
