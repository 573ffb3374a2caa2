"""Teams and keys: a new team's admin key is its only way in; a team admin acts on its own team only, a
platform admin on any that exists; the last active admin key stays, and revoking twice changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session

from app.errors import Conflict, NotFound
from app.runner.runtime import Runtime
from app.schemas import KeyCreate
from app.services.keys import (
    create_api_key,
    create_team,
    get_api_key,
    list_api_keys,
    revoke_api_key,
    visible_teams,
)
from app.store import keys as key_store
from app.store.models import ApiKey


@pytest.fixture
def session(runtime: Runtime) -> Iterator[Session]:
    with Session(runtime.engine) as open_session:
        yield open_session


@pytest.fixture
def platform_admin(session: Session) -> ApiKey:
    team = key_store.get_or_create_default_team(session=session)
    return key_store.create_key(session=session, team_id=team.id, name="admin", role="admin")[0]


def _admin_of(session: Session, name: str) -> ApiKey:
    created = create_team(session=session, name=name)
    key = key_store.find_active_key(session=session, raw=created.admin_key.key)
    assert key is not None and key.team_id == created.id and key.role == "admin"
    return key


def test_a_new_team_gets_one_admin_key_shown_once_and_stored_as_a_hash(session: Session) -> None:
    created = create_team(session=session, name="clinic")
    assert created.platform is False and created.admin_key.team_id == created.id
    assert created.admin_key.key.startswith(created.admin_key.prefix)
    stored = session.get(ApiKey, created.admin_key.id)
    assert stored is not None and created.admin_key.key not in stored.key_hash
    actor = _admin_of(session, "other")
    listed = list_api_keys(session=session, actor=actor, team_id=None, include_revoked=False)
    assert [k.team_id for k in listed] == [actor.team_id]  # its own team's, not the clinic's
    assert not hasattr(listed[0], "key")


def test_a_team_admin_acts_on_its_own_team_and_a_platform_admin_on_any_that_exists(
    session: Session, platform_admin: ApiKey
) -> None:
    ours, theirs = _admin_of(session, "ours"), _admin_of(session, "theirs")
    for name_a_team in (theirs.team_id, platform_admin.team_id):
        with pytest.raises(NotFound) as refused:
            create_api_key(session=session, actor=ours, body=KeyCreate(name="x", team_id=name_a_team))
        assert refused.value.field == "team_id"
    with pytest.raises(NotFound) as hidden:
        get_api_key(session=session, actor=ours, key_id=theirs.id)
    assert hidden.value.field == "key_id"

    made = create_api_key(
        session=session, actor=platform_admin, body=KeyCreate(name="ci", team_id=theirs.team_id)
    )
    assert made.team_id == theirs.team_id and made.role == "member"
    assert get_api_key(session=session, actor=platform_admin, key_id=theirs.id) is theirs
    with pytest.raises(NotFound) as missing:
        list_api_keys(session=session, actor=platform_admin, team_id="team_nope", include_revoked=False)
    assert missing.value.field == "team_id"
    assert {t.id for t in visible_teams(session=session, actor=platform_admin)} == {
        platform_admin.team_id,
        ours.team_id,
        theirs.team_id,
    }
    assert [t.id for t in visible_teams(session=session, actor=ours)] == [ours.team_id]


def test_the_last_active_admin_stays_and_a_second_revoke_changes_nothing(session: Session) -> None:
    first = _admin_of(session, "ops")
    second = create_api_key(session=session, actor=first, body=KeyCreate(name="backup", role="admin"))
    revoked = revoke_api_key(session=session, actor=first, key_id=second.id)
    assert revoked.revoked_at is not None
    assert revoke_api_key(session=session, actor=first, key_id=second.id).revoked_at == revoked.revoked_at

    with pytest.raises(Conflict) as kept:  # the revoked admin key does not count as another admin
        revoke_api_key(session=session, actor=first, key_id=first.id)
    assert kept.value.field == "key_id" and first.revoked_at is None
    active = list_api_keys(session=session, actor=first, team_id=None, include_revoked=False)
    every = list_api_keys(session=session, actor=first, team_id=None, include_revoked=True)
    assert [k.id for k in active] == [first.id] and [k.id for k in every] == [first.id, second.id]
