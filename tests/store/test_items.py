"""Items: written once per key however often a shard writes them, read back in matrix order and pages."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, event, insert
from sqlmodel import Session

from app.store import budget
from app.store.items import (
    SQLITE_PAGE_ROWS,
    all_items,
    existing_keys,
    find_item,
    first_with_verdicts,
    insert_items,
    item_spec,
    page_items,
    report_rows,
    shard_counts,
)
from app.store.models import Evaluation, EvaluationItem, Target, Team
from tests.store.conftest import add_evaluation, item_row, seed


def test_a_second_write_of_a_key_is_a_no_op_and_counts_nothing(engine: Engine) -> None:
    _, _, ev = seed(engine, total=3)
    assert insert_items(engine=engine, rows=[item_row(ev, 0, reply="first"), item_row(ev, 1)]) == 2
    assert insert_items(engine=engine, rows=[item_row(ev, 0, reply="second"), item_row(ev, 2)]) == 1
    assert insert_items(engine=engine, rows=[]) == 0
    with Session(engine) as session:
        stored = all_items(session=session, evaluation_id=ev)
    assert [(i.idx, i.reply) for i in stored] == [(0, "first"), (1, None), (2, None)]


def test_workers_writing_the_same_items_at_once_store_each_once(engine: Engine) -> None:
    _, _, ev = seed(engine, total=30)
    rows = [item_row(ev, i) for i in range(30)]
    inserted: list[int] = []
    start = threading.Barrier(3)

    def write() -> None:
        start.wait()
        inserted.append(insert_items(engine=engine, rows=rows))

    threads = [threading.Thread(target=write) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(inserted) == 30
    with Session(engine) as session:
        assert len(all_items(session=session, evaluation_id=ev)) == 30


def _full_row(evaluation_id: str, idx: int) -> dict[str, Any]:
    """A graded row with every kind of column set, JSON nulls and nested values included."""
    return item_row(
        evaluation_id,
        idx,
        reply=f"reply {idx} with 'quotes' and a \u00e9",
        messages=[{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}],
        checks={"escalates": True, "names_line": False, "n": 2},
        reasons=["a", "b"],
        latency_ms=12.5,
        usage=None,
        verdict="PASS",
        score=0.75,
        judge={"answers": [None, 4]},
        panel_scores=[4.0, None],
        rules_score=4,
        likert=None,
        created_at=datetime(2026, 11, 24, 12, 0, 0, 123456, tzinfo=UTC),
    )


def _stored(engine: Engine, evaluation_id: str) -> list[tuple[Any, ...]]:
    """The raw stored values, as any reader of the table gets them."""
    with engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT * FROM evaluation_item WHERE evaluation_id = ? ORDER BY idx", (evaluation_id,)
        )
        return [
            tuple(v for name, v in row._mapping.items() if name not in ("id", "evaluation_id"))
            for row in rows
        ]


def test_sqlite_stores_a_batch_exactly_as_sqlalchemy_does(sqlite: Engine) -> None:
    """The one-statement SQLite path writes the same bytes as SQLAlchemy's own insert, created_at filled in."""
    team_id, target_id, ours = seed(sqlite, total=300)
    with Session(sqlite) as session:
        team, target = session.get(Team, team_id), session.get(Target, target_id)
        assert team is not None and target is not None
        reference = add_evaluation(session, team, target).id
        session.commit()
    rows = [_full_row(ours, i) for i in range(300)]
    assert insert_items(engine=sqlite, rows=rows) == 300  # more than one statement's page
    with sqlite.begin() as conn:
        conn.execute(insert(EvaluationItem), [{**r, "evaluation_id": reference} for r in rows])
    assert _stored(sqlite, ours) == _stored(sqlite, reference)
    bare = [item_row(ours, 300)]  # leaves created_at to its default
    assert insert_items(engine=sqlite, rows=bare) == 1
    with Session(sqlite) as session:
        read = find_item(session=session, evaluation_id=ours, key="k300")
        assert read is not None and read.created_at is not None and read.usage is None


def test_sqlite_writes_a_batch_in_one_statement_a_page(sqlite: Engine) -> None:
    """sqlite3 lets go of the interpreter lock at every statement step and a busy event loop keeps it up to
    5 ms each time: a row-by-row executemany held SQLite's write lock ~1 s per 128 rows in a busy process."""
    _, _, ev = seed(sqlite, total=600)
    statements: list[bool] = []

    def seen(conn: Any, cursor: Any, statement: str, params: Any, context: Any, executemany: bool) -> None:
        if statement.startswith("INSERT INTO evaluation_item"):
            statements.append(executemany)

    event.listen(sqlite, "before_cursor_execute", seen)
    try:
        assert insert_items(engine=sqlite, rows=[item_row(ev, i) for i in range(600)]) == 600
    finally:
        event.remove(sqlite, "before_cursor_execute", seen)
    assert statements == [False] * -(-600 // SQLITE_PAGE_ROWS)


def test_budgeted_items_stop_counting_as_in_flight_when_written(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, max_calls=10)
    assert budget.reserve(engine=sqlite, evaluation_id=ev, calls=1, tokens=0)
    assert budget.reserve(engine=sqlite, evaluation_id=ev, calls=1, tokens=0)
    insert_items(engine=sqlite, rows=[item_row(ev, 0)], budgeted=1)
    with Session(sqlite) as session:
        assert session.get(Evaluation, ev).budget_in_flight == 1  # type: ignore[union-attr]


def test_reads_page_in_matrix_order_and_find_what_was_written(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, total=7)
    verdicts = ["PASS", "FAIL", "PARTIAL", "FAIL", None, "FAIL", "PASS"]
    insert_items(
        engine=sqlite, rows=[item_row(ev, i, verdict=v) for i, v in reversed(list(enumerate(verdicts)))]
    )
    with Session(sqlite) as session:
        assert [i.idx for i in page_items(session=session, evaluation_id=ev, after_idx=-1, limit=3)] == [
            0,
            1,
            2,
        ]
        assert [i.idx for i in page_items(session=session, evaluation_id=ev, after_idx=2, limit=3)] == [
            3,
            4,
            5,
        ]
        assert [i.idx for i in page_items(session=session, evaluation_id=ev, after_idx=5, limit=3)] == [6]
        assert existing_keys(session=session, evaluation_id=ev, keys=["k1", "k9", "k6"]) == {"k1", "k6"}
        assert shard_counts(session=session, evaluation_id=ev, shard_size=3) == {0: 3, 1: 3, 2: 1}
        fails, total = first_with_verdicts(session=session, evaluation_id=ev, verdicts=["FAIL"], limit=2)
        assert ([i.idx for i in fails], total) == ([1, 3], 3)
        found = find_item(session=session, evaluation_id=ev, key="k4")
        assert found is not None and (item_spec(found).key, item_spec(found).index) == ("k4", 4)
        assert find_item(session=session, evaluation_id="ev_other", key="k4") is None
        rows = list(report_rows(session=session, evaluation_id=ev))
        assert [(r[0], r[6]) for r in rows] == [(f"k{i}", v) for i, v in enumerate(verdicts)]


def test_existing_keys_reads_more_keys_than_one_statement_may_bind(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, total=1200)
    insert_items(engine=sqlite, rows=[item_row(ev, i) for i in range(0, 1200, 2)])
    with Session(sqlite) as session:
        found = existing_keys(session=session, evaluation_id=ev, keys=[f"k{i}" for i in range(1200)])
    assert len(found) == 600
