"""Targets: every change is a new version and an old version reads as it was; deleted or another team's targets
are not found."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from app.store import targets
from tests.store.conftest import add_team

FIELDS = {"name": "bot", "kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m1"}


def test_an_edit_is_a_new_version_and_the_old_one_reads_as_it_was(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        team = add_team(session)
        target = targets.create_target(session=session, team_id=team.id, fields=FIELDS)
        targets.update_target(session=session, target=target, fields={"model": "m2", "max_tokens": 64})
        session.commit()
        assert (target.version, target.model) == (2, "m2")
        assert [v.version for v in targets.list_versions(session=session, target_id=target.id)] == [1, 2]
        old = targets.target_at_version(session=session, target_id=target.id, version=1)
        assert old is not None and (old.id, old.version, old.model, old.max_tokens) == (
            target.id,
            1,
            "m1",
            None,
        )
        assert targets.target_at_version(session=session, target_id="tgt_missing", version=1) is None
        session.expire_all()
        current = targets.get_target(session=session, team_id=team.id, target_id=target.id)
        assert current is not None and current.model == "m2"  # reading a version saved nothing


def test_deleted_and_other_teams_targets_are_not_found_but_their_history_stays(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        team, other = add_team(session, "a"), add_team(session, "b")
        kept = targets.create_target(session=session, team_id=team.id, fields=FIELDS)
        gone = targets.create_target(session=session, team_id=team.id, fields=FIELDS | {"name": "old"})
        targets.delete_target(session=session, target=gone)
        session.commit()
        assert [t.id for t in targets.list_targets(session=session, team_id=team.id)] == [kept.id]
        assert targets.get_target(session=session, team_id=team.id, target_id=gone.id) is None
        assert targets.get_target(session=session, team_id=other.id, target_id=kept.id) is None
        assert targets.target_at_version(session=session, target_id=gone.id, version=1) is not None
