"""A shared budget: concurrent reservations start exactly as many items as the caps allow, a true-up moves the
count to what was measured, a written item stops counting as in flight, and a stopped budget starts nothing."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from app.store import budget
from app.store.models import Evaluation
from tests.store.conftest import at_once, seed


def _row(engine: Engine, evaluation_id: str) -> Evaluation:
    with Session(engine) as session:
        ev = session.get(Evaluation, evaluation_id)
        assert ev is not None
        return ev


def test_concurrent_reservations_start_exactly_as_many_items_as_the_call_cap_allows(engine: Engine) -> None:
    _, _, ev = seed(engine, max_calls=10)

    def reserve_many() -> list[bool]:
        return [budget.reserve(engine=engine, evaluation_id=ev, calls=2, tokens=0) for _ in range(5)]

    won = [taken for each in at_once(reserve_many, 4) for taken in each]
    row = _row(engine, ev)
    assert won.count(True) == 5  # 5 items × 2 calls = the cap of 10, whoever asked
    assert (row.calls_used, row.budget_in_flight) == (10, 5)


def test_the_token_cap_refuses_an_item_that_would_pass_it_and_no_cap_refuses_nothing(sqlite: Engine) -> None:
    _, _, capped = seed(sqlite, max_tokens=100)
    assert budget.reserve(engine=sqlite, evaluation_id=capped, calls=1, tokens=60)
    assert not budget.reserve(engine=sqlite, evaluation_id=capped, calls=1, tokens=60)
    assert budget.reserve(engine=sqlite, evaluation_id=capped, calls=1, tokens=40)
    _, _, free = seed(sqlite)
    assert all(budget.reserve(engine=sqlite, evaluation_id=free, calls=50, tokens=10**6) for _ in range(3))


def test_a_true_up_replaces_the_estimate_and_frees_room_for_another_item(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, max_calls=4, max_tokens=1000)
    assert budget.reserve(engine=sqlite, evaluation_id=ev, calls=4, tokens=500)
    assert not budget.reserve(engine=sqlite, evaluation_id=ev, calls=1, tokens=1)
    budget.true_up(engine=sqlite, evaluation_id=ev, calls=-3, tokens=-380)  # it made 1 call of 120 tokens
    assert (_row(sqlite, ev).calls_used, _row(sqlite, ev).tokens_used) == (1, 120)
    assert budget.reserve(engine=sqlite, evaluation_id=ev, calls=3, tokens=500)


def test_a_written_item_stops_counting_as_in_flight(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, max_calls=10)
    for _ in range(3):
        assert budget.reserve(engine=sqlite, evaluation_id=ev, calls=1, tokens=0)
    with sqlite.begin() as conn:
        budget.written(conn=conn, evaluation_id=ev, items=2)
    assert _row(sqlite, ev).budget_in_flight == 1


def test_a_stopped_budget_starts_no_item_and_keeps_the_first_stop(engine: Engine) -> None:
    _, _, ev = seed(engine)
    budget.stop(engine=engine, evaluation_id=ev)
    first = _row(engine, ev).budget_stopped_at
    assert first is not None
    budget.stop(engine=engine, evaluation_id=ev)
    assert _row(engine, ev).budget_stopped_at == first
    assert not budget.reserve(engine=engine, evaluation_id=ev, calls=1, tokens=1)
