"""Items: written once per key however often a shard writes them, read back in matrix order and pages."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine, event, text
from sqlmodel import Session

from app.scoring.facets import StoredItem
from app.store import budget, erase
from app.store.items import (
    all_items,
    existing_keys,
    find_item,
    first_item_kind,
    first_with_verdicts,
    insert_items,
    item_spec,
    page_items,
    report_rows,
    shard_counts,
)
from app.store.models import Evaluation
from tests.store.conftest import at_once, item_row, seed


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
    inserted = at_once(lambda: insert_items(engine=engine, rows=rows), 3)
    assert sum(inserted) == 30
    with Session(engine) as session:
        assert len(all_items(session=session, evaluation_id=ev)) == 30


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
        assert shard_counts(session=session, evaluation_id=ev, shard_size=3, from_shard=1) == {1: 3, 2: 1}
        fails, total = first_with_verdicts(session=session, evaluation_id=ev, verdicts=["FAIL"], limit=2)
        assert ([i.idx for i in fails], total) == ([1, 3], 3)
        found = find_item(session=session, evaluation_id=ev, key="k4")
        assert found is not None and (item_spec(found).key, item_spec(found).index) == ("k4", 4)
        assert find_item(session=session, evaluation_id="ev_other", key="k4") is None
        rows = list(report_rows(session=session, evaluation_id=ev))
        assert [(r[0], r[6]) for r in rows] == [(f"k{i}", v) for i, v in enumerate(verdicts)]


def test_an_item_reads_back_the_kind_stored_with_it(engine: Engine) -> None:
    """The kind is the row's own, whatever its ids look like: readers pick the kind's code from it."""
    _, _, ev = seed(engine, total=3, suite="conversations")
    rows = [
        item_row(
            ev,
            0,
            scenario_id="CONV",
            condition_id="CONV-c",
            perturbation_id="CONV-s",
            item_kind="conversations",
        ),
        item_row(ev, 1, item_kind="classification"),
        item_row(ev, 2),
    ]
    insert_items(engine=engine, rows=rows)
    with Session(engine) as session:
        assert first_item_kind(session=session, evaluation_id=ev) == "conversations"
        assert first_item_kind(session=session, evaluation_id="ev_other") is None
        found = [find_item(session=session, evaluation_id=ev, key=f"k{i}") for i in range(3)]
        assert [item_spec(row).kind for row in found if row is not None] == [
            "conversations",
            "classification",
            "matrix",
        ]
        assert item_spec(found[0]).code == "CONV-s"  # type: ignore[arg-type]
        stored = [StoredItem(*r) for r in report_rows(session=session, evaluation_id=ev)]
    assert [s.item_kind for s in stored] == ["conversations", "classification", "matrix"]


def test_existing_keys_reads_more_keys_than_one_statement_may_bind(sqlite: Engine) -> None:
    _, _, ev = seed(sqlite, total=1200)
    insert_items(engine=sqlite, rows=[item_row(ev, i) for i in range(0, 1200, 2)])
    with Session(sqlite) as session:
        found = existing_keys(session=session, evaluation_id=ev, keys=[f"k{i}" for i in range(1200)])
    assert len(found) == 600


def test_existing_keys_within_a_range_of_indexes_reads_only_that_range(engine: Engine) -> None:
    """A shard's lookup names where its items lie; a key stored outside that stretch is not reported."""
    _, _, ev = seed(engine, total=10)
    insert_items(engine=engine, rows=[item_row(ev, i) for i in range(10)])
    with Session(engine) as session:
        keys = [f"k{i}" for i in (2, 4, 6, 8)]
        assert existing_keys(session=session, evaluation_id=ev, keys=keys, within=(3, 6)) == {"k4", "k6"}
        assert existing_keys(session=session, evaluation_id=ev, keys=keys) == set(keys)


class PausedWriter:
    """`insert_items` on a thread of its own that stops right after locking its evaluation's row, until released:
    a worker's item batch caught mid-transaction."""

    def __init__(self, engine: Engine, rows: list[dict[str, Any]], *, budgeted: int = 0) -> None:
        self.engine, self.locked, self.release = engine, threading.Event(), threading.Event()
        self.inserted: list[int] = []
        self.thread = threading.Thread(
            target=lambda: self.inserted.append(insert_items(engine=engine, rows=rows, budgeted=budgeted))
        )

    def _after_execute(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if threading.current_thread() is self.thread and statement.rstrip().endswith(("FOR SHARE", "UPDATE")):
            self.locked.set()
            self.release.wait()

    def __enter__(self) -> PausedWriter:
        event.listen(self.engine, "after_cursor_execute", self._after_execute)
        self.thread.start()
        assert self.locked.wait(30), "the writer never locked its evaluation"
        return self

    def __exit__(self, *_: object) -> None:
        self.release.set()
        self.thread.join()
        event.remove(self.engine, "after_cursor_execute", self._after_execute)


def _ends_or_waits(engine: Engine, work: Callable[[], object]) -> tuple[str, threading.Thread]:
    """Start `work` on a thread: "done" once it has ended, "waiting" once PostgreSQL says one of this database's
    sessions waits for a lock (the thread is returned so the caller can join it)."""
    thread = threading.Thread(target=work)
    thread.start()
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        while thread.is_alive():
            waiting = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE wait_event_type = 'Lock' AND datname = current_database()"
                )
            ).scalar_one()
            if waiting:
                return "waiting", thread
            thread.join(0.01)
    return "done", thread


@pytest.mark.postgres
def test_workers_writing_one_evaluation_do_not_queue_for_its_row(postgres: Engine) -> None:
    _, _, ev = seed(postgres, total=4)
    with PausedWriter(postgres, [item_row(ev, 0), item_row(ev, 1)]) as first:
        outcome, second = _ends_or_waits(
            postgres, lambda: insert_items(engine=postgres, rows=[item_row(ev, 2), item_row(ev, 3)])
        )
        assert outcome == "done", "a second writer of the run waited for the first to commit"
        second.join()
    assert first.inserted == [2]
    with Session(postgres) as session:
        assert [i.idx for i in all_items(session=session, evaluation_id=ev)] == [0, 1, 2, 3]


@pytest.mark.postgres
def test_an_erase_waits_for_a_writer_in_flight_and_keeps_none_of_its_rows(postgres: Engine) -> None:
    _, _, ev = seed(postgres, total=3, status="running")

    def erase_it() -> None:
        with Session(postgres) as session:
            evaluation = erase.lock_evaluation(session=session, evaluation_id=ev)
            assert evaluation is not None
            erase.erase_evaluation(session=session, evaluation=evaluation, keep_report=True)
            session.commit()

    with PausedWriter(postgres, [item_row(ev, 0), item_row(ev, 1)]) as writer:
        outcome, eraser = _ends_or_waits(postgres, erase_it)
        assert outcome == "waiting", "the erase went ahead while a writer held rows it would not see"
    eraser.join()
    assert writer.inserted == [2]  # committed before the erase, then deleted by it
    assert insert_items(engine=postgres, rows=[item_row(ev, 2)]) == 0
    with Session(postgres) as session:
        assert all_items(session=session, evaluation_id=ev) == []


@pytest.mark.postgres
def test_budgeted_writers_take_turns_on_the_row_they_update(postgres: Engine) -> None:
    _, _, ev = seed(postgres, total=4, max_calls=10)
    for _ in range(4):
        assert budget.reserve(engine=postgres, evaluation_id=ev, calls=1, tokens=0)
    rows = [[item_row(ev, 0), item_row(ev, 1)], [item_row(ev, 2), item_row(ev, 3)]]
    with PausedWriter(postgres, rows[0], budgeted=2):
        outcome, second = _ends_or_waits(
            postgres, lambda: insert_items(engine=postgres, rows=rows[1], budgeted=2)
        )
        assert outcome == "waiting"
    second.join()  # both written, neither deadlocked on the other
    with Session(postgres) as session:
        evaluation = session.get(Evaluation, ev)
        assert evaluation is not None and evaluation.budget_in_flight == 0
        assert len(all_items(session=session, evaluation_id=ev)) == 4
