"""Evaluations in the store: status moves by guarded statements (a finished run never moves again), a run is
settled once when its items are in, pages are stable, and the board stamp moves with every board change."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from app.store import budget
from app.store import evaluations as store
from app.store.items import insert_items
from app.store.models import WHOLE, Evaluation, utcnow
from tests.store.conftest import add_evaluation, add_target, add_team, at_once, item_row, seed


def _status(engine: Engine, evaluation_id: str) -> str:
    with Session(engine) as session:
        return session.get(Evaluation, evaluation_id).status  # type: ignore[union-attr]


def test_racing_finishers_settle_a_complete_run_once(engine: Engine) -> None:
    _, _, ev = seed(engine, total=2, status="running")
    insert_items(engine=engine, rows=[item_row(ev, 0, verdict="PASS"), item_row(ev, 1, verdict="FAIL")])

    def finish() -> str | None:
        with Session(engine) as session:
            settled = store.finish_if_complete(session=session, evaluation_id=ev)
            session.commit()
        return settled

    settled = at_once(finish, 3)
    assert [s for s in settled if s] == ["succeeded"]
    assert _status(engine, ev) == "succeeded"


def test_a_run_is_not_settled_until_every_item_is_in_and_fails_when_every_item_failed(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, total=2)
    insert_items(engine=sqlite, rows=[item_row(ev, 0, error_class="timeout")])
    with Session(sqlite) as session:
        assert store.finish_if_complete(session=session, evaluation_id=ev) is None
        assert store.progress(session=session, evaluation_id=ev) == (1, 1)
    insert_items(engine=sqlite, rows=[item_row(ev, 1, error_class="http_500")])
    with Session(sqlite) as session:
        assert store.finish_if_complete(session=session, evaluation_id=ev) == "failed"
        session.commit()
        row = session.get(Evaluation, ev)
        assert row is not None and row.error and "every call" in row.error and row.finished_at is not None


def test_a_run_its_budget_stopped_settles_on_what_it_ran(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, total=5, max_calls=2, status="running")
    assert budget.reserve(engine=sqlite, evaluation_id=ev, calls=1, tokens=0)
    assert budget.reserve(engine=sqlite, evaluation_id=ev, calls=1, tokens=0)
    budget.stop(engine=sqlite, evaluation_id=ev)
    insert_items(engine=sqlite, rows=[item_row(ev, 0, verdict="PASS")], budgeted=1)
    with Session(sqlite) as session:
        assert store.finish_if_complete(session=session, evaluation_id=ev) is None  # one item still in flight
        assert (
            store.finish_if_complete(session=session, evaluation_id=ev, budget_lost=True)
            == "stopped_by_budget"
        )
        session.commit()
        assert session.get(Evaluation, ev).total == 1  # type: ignore[union-attr]


def test_a_finished_run_is_neither_started_cancelled_nor_failed_again(engine: Engine) -> None:
    _, _, ev = seed(engine, total=0)
    with Session(engine) as session:
        assert store.mark_running(session=session, evaluation_id=ev)
        session.commit()
        assert _status(engine, ev) == "running"
        evaluation = session.get(Evaluation, ev)
        assert evaluation is not None and store.request_cancel(session=session, evaluation=evaluation)
        session.commit()
        assert store.is_cancelled(session=session, evaluation_id=ev)
        assert not store.mark_running(session=session, evaluation_id=ev)
        assert not store.request_cancel(session=session, evaluation=evaluation)
        store.fail_evaluation(session=session, evaluation_id=ev, error="late")
        session.commit()
    assert _status(engine, ev) == "cancelled"


def test_a_stall_is_recorded_once_and_cleared_by_progress(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, status="running")
    with Session(sqlite) as session:
        assert store.mark_stalled(session=session, evaluation_id=ev, reason="no progress")
        assert not store.mark_stalled(session=session, evaluation_id=ev, reason="again")
        store.set_idle_since(session=session, evaluation_id=ev, since=utcnow())
        session.commit()
        store.note_progress(session=session, evaluation_id=ev, done=1)
        session.commit()
        session.expire_all()
        row = session.get(Evaluation, ev)
        assert row is not None and (row.stalled, row.idle_since, row.progress_done) == (None, None, 1)
        assert store.mark_stalled(session=session, evaluation_id=ev, reason="stuck again")


def test_listing_pages_newest_first_within_the_team(sqlite: Engine) -> None:
    now = utcnow()
    with Session(sqlite) as session:
        team, other = add_team(session, "a"), add_team(session, "b")
        target = add_target(session, team)
        made = [
            add_evaluation(session, team, target, created_at=now + timedelta(seconds=s)).id for s in range(5)
        ]
        add_evaluation(session, other, add_target(session, other))
        session.commit()
        first = store.list_evaluations(session=session, team_id=team.id, limit=3, after=None)
        last = (first[-1].created_at, first[-1].id)
        rest = store.list_evaluations(session=session, team_id=team.id, limit=3, after=last)
        assert [e.id for e in first + rest] == made[::-1]
        assert store.count_active(session=session, team_id=team.id) == 5
        assert store.get_evaluation(session=session, team_id=other.id, evaluation_id=made[0]) is None
        assert store.get_evaluation(session=session, team_id=None, evaluation_id=made[0]) is not None


def test_an_idempotency_key_finds_the_teams_own_evaluation(sqlite: Engine) -> None:
    team, _, ev = seed(sqlite, idempotency_key="run-1")
    with Session(sqlite) as session:
        found = store.find_by_idempotency_key(session=session, team_id=team, key="run-1")
        assert found is not None and found.id == ev
        assert store.find_by_idempotency_key(session=session, team_id="team_other", key="run-1") is None


def test_board_figures_replace_earlier_ones_and_move_the_stamp(engine: Engine) -> None:
    _, _, ev = seed(engine, status="succeeded", visibility="public", finished_at=utcnow())
    seed(engine, status="succeeded", visibility="private")
    with Session(engine) as session:
        assert store.leaderboard_stamp(session=session, benchmark_version="v1") == (1, 0)
        for score in (0.5, 0.7):
            store.save_board_figures(
                session=session,
                evaluation_id=ev,
                benchmark_version="v1",
                finished_at=utcnow(),
                figures={WHOLE: {"score": score}, "country:AU": {"score": score / 2}},
            )
            session.commit()
        assert store.leaderboard_stamp(session=session, benchmark_version="v1") == (1, 2)
        assert store.board_figures_of(session=session, evaluation_id=ev)[WHOLE] == {"score": 0.7}
        (record,) = store.board_records(session=session, benchmark_version="v1", slice="country:AU")
        assert record.has_figures and record.figures is not None and "0.35" in record.figures
        (bare,) = store.board_records(session=session, benchmark_version="v1", slice="country:GB")
        assert bare.figures is None and bare.has_figures
        assert store.board_versions(session=session) == ["v1"]
