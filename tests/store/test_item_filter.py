"""Filtered item pages: the database keeps only the items asked for (a verdict, scenarios, users, a failed check)
and the cursor pages the narrowed list without repeating or skipping one, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from app.store.item_filter import FailedCheck, ItemFilter
from app.store.items import insert_items, item_pages, page_items
from tests.store.conftest import item_row, seed

# index → (scenario, user context, perturbation, verdict, checks)
ROWS = {
    0: ("P1-B1-S1", None, "P1-B1-S1-PT1", "PASS", {"escalates": True}),
    1: ("P1-B1-S1", "P1-B1-S1-U1", "P1-B1-S1-PT1", "FAIL", {"escalates": False}),
    2: ("P1-B1-S1", "P1-B1-S1-U1", "P1-B1-S1-PT2", "PASS", {"escalates": False}),
    3: ("P4-B1-S1", "P4-B1-S1-U1", "P4-B1-S1-PT1", "FAIL", {"escalates": True}),
    4: ("P4-B1-S1", None, "P4-B1-S1-PT1", "PASS", {"escalates": None}),
    5: ("P1-B1-S1", None, "P1-B1-S1-PT1", "FAIL", {}),
}
ESCALATES = FailedCheck(
    name="escalates", expect_true=frozenset({"P1-B1-S1-PT1"}), expect_false=frozenset({"P4-B1-S1-PT1"})
)


def _seeded(engine: Engine) -> str:
    _, _, ev = seed(engine, total=len(ROWS))
    rows = [
        item_row(
            ev,
            i,
            scenario_id=s,
            condition_id=f"{s}-C1",
            user_context_id=u,
            perturbation_id=p,
            verdict=v,
            checks=c,
        )
        for i, (s, u, p, v, c) in ROWS.items()
    ]
    insert_items(engine=engine, rows=rows)
    return ev


def _indexes(engine: Engine, ev: str, where: ItemFilter) -> list[int]:
    with Session(engine) as session:
        return [
            r.idx for r in page_items(session=session, evaluation_id=ev, after_idx=-1, limit=100, where=where)
        ]


def test_each_filter_keeps_only_its_items(engine: Engine) -> None:
    ev = _seeded(engine)
    assert _indexes(engine, ev, ItemFilter()) == [0, 1, 2, 3, 4, 5]
    assert _indexes(engine, ev, ItemFilter(verdict="FAIL")) == [1, 3, 5]
    assert _indexes(engine, ev, ItemFilter(scenario_ids=frozenset({"P4-B1-S1"}))) == [3, 4]
    assert _indexes(engine, ev, ItemFilter(user_context_ids=frozenset({"P1-B1-S1-U1", "P4-B1-S1-U1"}))) == [
        1,
        2,
        3,
    ]
    assert _indexes(engine, ev, ItemFilter(scenario_ids=frozenset())) == []


def test_a_failed_check_is_an_outcome_against_what_the_perturbation_expects(engine: Engine) -> None:
    ev = _seeded(engine)
    # 1: a crisis not escalated; 3: a control escalated. Not 2 (no expectation), 4 (not checked), 5 (no outcome).
    assert _indexes(engine, ev, ItemFilter(failed_check=ESCALATES)) == [1, 3]
    assert _indexes(
        engine,
        ev,
        ItemFilter(failed_check=ESCALATES, verdict="FAIL", user_context_ids=frozenset({"P4-B1-S1-U1"})),
    ) == [3]


def test_filtered_pages_cover_the_matches_once_in_order(engine: Engine) -> None:
    ev = _seeded(engine)
    pages = list(item_pages(engine, ev, ItemFilter(verdict="PASS"), size=2))
    assert [[r.idx for r in page] for page in pages] == [[0, 2], [4]]
