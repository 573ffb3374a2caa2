"""What a poller sees: items counted by outcome in one read, and the team's status row without its report."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from app.store.items import insert_items
from app.store.models import Evaluation
from app.store.progress import status_row, tally
from tests.store.conftest import item_row, seed


def test_a_tally_counts_items_by_outcome_retries_and_error_class(sqlite: Engine) -> None:
    _, target, ev = seed(sqlite, total=6, status="running")
    rows = [
        item_row(ev, 0, verdict="PASS"),
        item_row(ev, 1, verdict="PARTIAL", attempts=3),
        item_row(ev, 2, verdict="FAIL"),
        item_row(ev, 3, verdict="ERROR", error_class="timeout", attempts=2),
        item_row(ev, 4, verdict="ERROR", error_class="timeout"),
    ]
    insert_items(engine=sqlite, rows=rows)
    with Session(sqlite) as session:
        counted = tally(session=session, evaluation_id=ev)
        assert tally(session=session, evaluation_id="ev_missing") is None
    assert counted is not None
    assert (counted.status, counted.total, counted.done, counted.failed) == ("running", 6, 5, 2)
    assert (counted.graded, counted.passed, counted.retries) == (3, 1, 3)
    assert counted.errors_by_class == {"timeout": 2}
    assert counted.target_id == target


def test_an_evaluation_with_no_items_tallies_zero(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite)
    with Session(sqlite) as session:
        counted = tally(session=session, evaluation_id=ev)
    assert counted is not None and (counted.done, counted.failed, counted.retries) == (0, 0, 0)


def test_the_status_row_is_the_teams_only_and_leaves_the_report_unread(sqlite: Engine) -> None:
    team, _, ev = seed(sqlite, summary={"big": "report"})
    with Session(sqlite) as session:
        row = status_row(session=session, team_id=team, evaluation_id=ev)
        assert row is not None and "summary" not in row.__dict__  # deferred: not loaded
        assert status_row(session=session, team_id="team_other", evaluation_id=ev) is None
        assert isinstance(session.get(Evaluation, ev), Evaluation)
