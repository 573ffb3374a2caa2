"""Schedules and regressions in the store: a tick is claimed by exactly one scheduler, paused or deleted
schedules are never due, and a settle's regressions are stored once and read newest first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from app.store import schedules as store
from app.store.models import Regression, Schedule, utcnow
from tests.store.conftest import add_evaluation, add_target, add_team, at_once, seed

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _schedule(engine: Engine, **fields: object) -> tuple[str, str]:
    team, target, _ = seed(engine)
    with Session(engine) as session:
        schedule = Schedule(team_id=team, target_id=target, suite="quick", every_minutes=1, next_run_at=T0)
        for name, value in fields.items():
            setattr(schedule, name, value)
        session.add(schedule)
        session.commit()
        return team, schedule.id


def test_racing_schedulers_claim_a_tick_exactly_once(engine: Engine) -> None:
    _, schedule_id = _schedule(engine)

    def claim() -> bool:
        with Session(engine) as session:
            took = store.claim_tick(
                session=session, schedule_id=schedule_id, tick=T0, next_run_at=T0 + timedelta(minutes=1)
            )
            session.commit()
        return took

    won = at_once(claim, 4)
    assert won.count(True) == 1
    with Session(engine) as session:
        row = store.get_schedule(session=session, team_id=None, schedule_id=schedule_id)
        assert row is not None and row.last_run_at is not None
        assert row.next_run_at.replace(tzinfo=UTC) == T0 + timedelta(minutes=1)


def test_an_uncommitted_claim_blocks_nobody(sqlite: Engine) -> None:
    _, schedule_id = _schedule(sqlite)
    with Session(sqlite) as session:
        assert store.claim_tick(session=session, schedule_id=schedule_id, tick=T0, next_run_at=T0)
        session.rollback()
    with Session(sqlite) as session:
        assert store.claim_tick(session=session, schedule_id=schedule_id, tick=T0, next_run_at=T0)


@pytest.mark.parametrize("fields", [{"paused": True}, {"deleted_at": T0}], ids=["paused", "deleted"])
def test_paused_and_deleted_schedules_are_never_due_nor_claimed(
    sqlite: Engine, fields: dict[str, object]
) -> None:
    team, schedule_id = _schedule(sqlite, **fields)
    with Session(sqlite) as session:
        assert store.due_schedules(session=session, now=T0 + timedelta(days=1)) == []
        assert not store.claim_tick(session=session, schedule_id=schedule_id, tick=T0, next_run_at=T0)
        listed = [s.id for s in store.list_schedules(session=session, team_id=team)]
        assert listed == ([] if "deleted_at" in fields else [schedule_id])


def test_a_schedule_is_due_from_its_tick_and_only_its_team_reads_it(sqlite: Engine) -> None:
    team, schedule_id = _schedule(sqlite)
    with Session(sqlite) as session:
        assert store.due_schedules(session=session, now=T0 - timedelta(seconds=1)) == []
        assert [s.id for s in store.due_schedules(session=session, now=T0)] == [schedule_id]
        assert store.get_schedule(session=session, team_id="team_other", schedule_id=schedule_id) is None
        store.note_run(session=session, schedule_id=schedule_id, evaluation_id=None, error="target gone")
        session.commit()
        row = store.get_schedule(session=session, team_id=team, schedule_id=schedule_id)
        assert row is not None and (row.last_error, row.last_evaluation_id) == ("target gone", None)


def test_the_baseline_is_the_last_succeeded_run_of_the_same_target_suite_and_version(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        team = add_team(session)
        target = add_target(session, team)
        other = add_target(session, team, "other")

        def at(minutes: int, **fields: object):  # type: ignore[no-untyped-def]
            values = {"status": "succeeded", "created_at": T0 + timedelta(minutes=minutes)} | fields
            return add_evaluation(session, team, values.pop("target", target), **values)

        at(0)
        best = at(1)
        at(2, status="failed")
        at(3, suite="full")
        at(4, benchmark_version="v2")
        at(5, target=other)
        current = at(6, status="running")
        at(7)  # after it: not its baseline
        session.commit()
        found = store.previous_succeeded(session=session, evaluation=current)
        assert found is not None and found.id == best.id


def _regression(team: str, evaluation_id: str, metric: str, created_at: datetime) -> Regression:
    return Regression(
        team_id=team,
        evaluation_id=evaluation_id,
        baseline_evaluation_id="ev_base",
        metric=metric,
        test="mcnemar",
        baseline_value=0.9,
        value=0.6,
        difference=-0.3,
        p_value=0.01,
        p_adjusted=0.02,
        n_pairs=20,
        created_at=created_at,
    )


def test_regressions_are_stored_once_per_evaluation_and_page_newest_first(sqlite: Engine) -> None:
    team, _, first = seed(sqlite)
    _, _, second = seed(sqlite)
    now = utcnow()
    with Session(sqlite) as session:
        store.add_regressions(session=session, rows=[_regression(team, first, "pass_rate", now)])
        session.commit()
        again = [_regression(team, first, "pass_rate", now), _regression(team, first, "P1", now)]
        store.add_regressions(session=session, rows=again)  # a second settle: nothing added
        later = [_regression(team, second, m, now + timedelta(seconds=1)) for m in ("pass_rate", "P4")]
        store.add_regressions(session=session, rows=later)
        session.commit()
        assert [r.metric for r in store.regressions_of(session=session, evaluation_id=first)] == ["pass_rate"]
        assert [r.metric for r in store.regressions_of(session=session, evaluation_id=second)] == [
            "P4",
            "pass_rate",
        ]
        page = store.list_regressions(session=session, team_id=team, limit=2, after=None)
        assert {r.evaluation_id for r in page} == {second}
        rest = store.list_regressions(
            session=session, team_id=team, limit=2, after=(page[-1].created_at, page[-1].id)
        )
        assert [r.evaluation_id for r in rest] == [first]
