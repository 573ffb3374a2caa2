"""Tallies: what a poller reads of a run's progress stays equal to a count of the items stored, however the
writes fall (keys written twice with other outcomes, writers at once, an erase)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from sqlmodel import Session

from app.benchmark.verdicts import GRADED
from app.store import erase, tallies
from app.store.items import all_items, insert_items
from app.store.models import Evaluation
from tests.store.conftest import at_once, item_row, seed

OUTCOMES = [  # (verdict, error class, attempts) as the runner writes them
    ("PASS", None, 1),
    ("PARTIAL", None, 2),
    ("FAIL", None, 1),
    ("UNGRADED", None, 1),
    (None, "timeout", 3),
    (None, "rate_limited", 5),
    ("UNGRADED", "bad_response", 1),
]

rows_of_a_write = st.lists(
    st.tuples(st.integers(0, 1_100), st.sampled_from(OUTCOMES)),
    min_size=1,
    max_size=40,
    unique_by=lambda r: r[0],
)


def _counted_from_items(engine: Engine, evaluation_id: str) -> tallies.Counts:
    """What a count over the stored items gives: the truth the tallies must equal."""
    with Session(engine) as session:
        items = all_items(session=session, evaluation_id=evaluation_id)
    errors = Counter(i.error_class for i in items if i.error_class)
    return tallies.Counts(
        written=len(items),
        failed=sum(errors.values()),
        graded=sum(i.verdict in GRADED for i in items),
        passed=sum(i.verdict == "PASS" for i in items),
        retries=sum(max(i.attempts - 1, 0) for i in items),
        errors_by_class=dict(errors),
    )


def _tallied(engine: Engine, evaluation_id: str) -> tallies.Counts:
    with Session(engine) as session:
        return tallies.counts(session=session, evaluation_id=evaluation_id)


def _row(evaluation_id: str, idx: int, outcome: tuple[str | None, str | None, int]) -> dict[str, object]:
    verdict, error, attempts = outcome
    return item_row(evaluation_id, idx, verdict=verdict, error_class=error, attempts=attempts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writes=st.lists(rows_of_a_write, min_size=1, max_size=5))
def test_tallies_equal_the_items_stored_however_writes_repeat_keys(
    engine: Engine, writes: list[list[tuple[int, tuple[str | None, str | None, int]]]]
) -> None:
    """A key written again (a shard re-run after its worker died), with another outcome this time, adds nothing:
    the first write is what is stored, and what is counted."""
    _, _, ev = seed(engine, total=1_101)
    for write in writes:
        insert_items(engine=engine, rows=[_row(ev, idx, outcome) for idx, outcome in write])
    assert _tallied(engine, ev) == _counted_from_items(engine, ev)


def test_writers_of_the_same_items_at_once_count_each_item_once(engine: Engine) -> None:
    _, _, ev = seed(engine, total=600)
    rows = [_row(ev, i, OUTCOMES[i % len(OUTCOMES)]) for i in range(400, 600)]  # across two stretches
    at_once(lambda: insert_items(engine=engine, rows=rows), 3)
    tallied = _tallied(engine, ev)
    assert tallied.written == 200
    assert tallied == _counted_from_items(engine, ev)


def test_an_erase_takes_the_tallies_with_the_items(engine: Engine) -> None:
    _, _, ev = seed(engine, total=3)
    insert_items(engine=engine, rows=[_row(ev, i, OUTCOMES[i]) for i in range(3)])
    assert _tallied(engine, ev).written == 3
    with Session(engine) as session:
        evaluation = session.get(Evaluation, ev)
        assert evaluation is not None
        erase.erase_evaluation(session=session, evaluation=evaluation, keep_report=True)
        session.commit()
    assert _tallied(engine, ev) == tallies.Counts()
    assert insert_items(engine=engine, rows=[_row(ev, 5, OUTCOMES[0])]) == 0  # a late writer keeps nothing
    assert _tallied(engine, ev) == tallies.Counts()


def test_runs_are_counted_apart(engine: Engine) -> None:
    _, _, first = seed(engine, total=2)
    _, _, second = seed(engine, total=2)
    insert_items(engine=engine, rows=[_row(first, 0, OUTCOMES[0]), _row(first, 1, OUTCOMES[4])])
    insert_items(engine=engine, rows=[_row(second, 0, OUTCOMES[2])])
    assert _tallied(engine, first) == tallies.Counts(2, 1, 1, 1, 2, {"timeout": 1})
    assert _tallied(engine, second) == tallies.Counts(1, 0, 1, 0, 0, {})
