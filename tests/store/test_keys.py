"""Teams and API keys: a key is found by its raw secret until revoked, never stored in clear, and another team's
key or a revoked one is simply not found."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from app.store import keys
from app.store.models import ApiKey


def test_a_key_is_found_by_its_secret_until_revoked_and_only_its_hash_is_stored(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        team = keys.create_team(session=session, name="a")
        key, raw = keys.create_key(session=session, team_id=team.id, name="ci", role="read-only")
        session.commit()
        assert raw.startswith(keys.KEY_PREFIX) and key.prefix == raw[:10]
        stored = session.exec(select(ApiKey)).one()
        assert raw not in (stored.key_hash, stored.prefix, stored.name)
        found = keys.find_active_key(session=session, raw=raw)
        assert found is not None and (found.id, found.role) == (key.id, "read-only")
        assert keys.find_active_key(session=session, raw=raw + "x") is None
        keys.revoke_key(session=session, key=key)
        session.commit()
        assert keys.find_active_key(session=session, raw=raw) is None
        assert keys.list_keys(session=session, team_id=team.id) == []
        assert [k.id for k in keys.list_keys(session=session, team_id=team.id, include_revoked=True)] == [
            key.id
        ]


def test_an_unknown_role_is_refused(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        team = keys.create_team(session=session, name="a")
        with pytest.raises(ValueError, match="role"):
            keys.create_key(session=session, team_id=team.id, name="x", role="owner")


def test_another_teams_key_is_not_found(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        a = keys.create_team(session=session, name="a")
        b = keys.create_team(session=session, name="b")
        key, _ = keys.create_key(session=session, team_id=a.id, name="k")
        assert keys.get_key(session=session, team_id=a.id, key_id=key.id) is not None
        assert keys.get_key(session=session, team_id=b.id, key_id=key.id) is None


def test_teams_are_found_by_id_or_oldest_name_and_the_default_team_is_made_once(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        first = keys.create_team(session=session, name="lab")
        keys.create_team(session=session, name="lab")
        assert keys.find_team(session=session, ref="lab").id == first.id  # type: ignore[union-attr]
        assert keys.find_team(session=session, ref=first.id).id == first.id  # type: ignore[union-attr]
        assert keys.find_team(session=session, ref="nobody") is None
        default = keys.get_or_create_default_team(session=session)
        assert default.platform
        assert keys.get_or_create_default_team(session=session).id == default.id
        assert [t.name for t in keys.list_teams(session=session)] == ["lab", "lab", "default"]


def test_the_first_admin_key_is_written_owner_only_and_never_made_twice(
    sqlite: Engine, tmp_path: Path
) -> None:
    key_file = tmp_path / "secrets" / "admin.key"
    with Session(sqlite) as session:
        raw = keys.ensure_admin_key(session=session, key_file=key_file)
        session.commit()
        assert raw is not None and key_file.read_text() == raw + "\n"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        admin = keys.find_active_key(session=session, raw=raw)
        assert admin is not None and admin.role == "admin"
        assert keys.ensure_admin_key(session=session, key_file=key_file) is None
    assert key_file.read_text() == raw + "\n"
