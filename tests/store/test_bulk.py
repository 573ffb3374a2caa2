"""Bulk writes: SQLite's one statement a page and PostgreSQL's COPY store rows exactly as SQLAlchemy's own insert
would, keys already stored skipped."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, event, exc, insert, text
from sqlmodel import Session

from app.store.bulk import PAGE_PARAMETERS, insert_many
from app.store.items import ITEMS, find_item
from app.store.models import EvaluationItem, Target, Team
from app.store.retry import is_transient
from tests.store.conftest import add_evaluation, item_row, seed

UNIQUE = ("evaluation_id", "key")


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
        rows = conn.execute(
            text("SELECT * FROM evaluation_item WHERE evaluation_id = :ev ORDER BY idx"),
            {"ev": evaluation_id},
        )
        return [
            tuple(v for name, v in row._mapping.items() if name not in ("id", "evaluation_id"))
            for row in rows
        ]


def test_a_batch_is_stored_exactly_as_sqlalchemy_stores_it(engine: Engine) -> None:
    """SQLite's one statement a page and PostgreSQL's COPY write what SQLAlchemy's own insert writes, JSON nulls
    and created_at included."""
    sqlite = engine
    team_id, target_id, ours = seed(sqlite, total=700)
    with Session(sqlite) as session:
        team, target = session.get(Team, team_id), session.get(Target, target_id)
        assert team is not None and target is not None
        reference = add_evaluation(session, team, target).id
        plain = add_evaluation(
            session, team, target
        ).id  # written with no key to keep unique (COPY on PostgreSQL)
        session.commit()
    rows = [_full_row(ours, i) for i in range(700)]
    with sqlite.begin() as conn:
        assert len(insert_many(conn, ITEMS, rows, unique=UNIQUE)) == 700  # more than one statement's page
        assert len(insert_many(conn, ITEMS, [{**r, "evaluation_id": plain} for r in rows])) == 700
    with sqlite.begin() as conn:
        conn.execute(insert(EvaluationItem), [{**r, "evaluation_id": reference} for r in rows])
    assert _stored(sqlite, ours) == _stored(sqlite, reference) == _stored(sqlite, plain)
    bare = [item_row(ours, 700)]  # leaves created_at to its default
    with sqlite.begin() as conn:
        assert len(insert_many(conn, ITEMS, bare, unique=UNIQUE)) == 1
    with Session(sqlite) as session:
        read = find_item(session=session, evaluation_id=ours, key="k700")
        assert read is not None and read.created_at is not None and read.usage is None


def test_sqlite_writes_a_batch_in_one_statement_a_page(sqlite: Engine) -> None:
    """sqlite3 lets go of the interpreter lock at every statement step and a busy event loop keeps it up to
    5 ms each time: a row-by-row executemany held SQLite's write lock ~1 s per 128 rows in a busy process."""
    _, _, ev = seed(sqlite, total=600)
    statements: list[bool] = []

    def seen(conn: Any, cursor: Any, statement: str, params: Any, context: Any, executemany: bool) -> None:
        if statement.startswith('INSERT INTO "evaluation_item"'):
            statements.append(executemany)

    event.listen(sqlite, "before_cursor_execute", seen)
    try:
        with sqlite.begin() as conn:
            assert len(insert_many(conn, ITEMS, [item_row(ev, i) for i in range(600)], unique=UNIQUE)) == 600
    finally:
        event.remove(sqlite, "before_cursor_execute", seen)
    per_page = PAGE_PARAMETERS // (len(item_row(ev, 0)) + 1)  # the row's columns and created_at
    left = 600 % per_page  # in runs of powers of two, one statement each
    assert per_page < 600 and statements == [False] * (600 // per_page + left.bit_count())


def test_sqlite_batches_of_every_size_prepare_few_statement_shapes(sqlite: Engine) -> None:
    """sqlite3 keeps up to 128 prepared statements per connection, one per distinct text: with a text per batch
    size a 100,000-item run's memory grew by ~120 MB. Batches of 1 to 130 rows now share a handful of shapes."""
    _, _, ev = seed(sqlite, total=130 * 131 // 2)
    texts: set[str] = set()

    def seen(conn: Any, cursor: Any, statement: str, params: Any, context: Any, executemany: bool) -> None:
        if statement.startswith('INSERT INTO "evaluation_item"'):
            texts.add(statement)

    event.listen(sqlite, "before_cursor_execute", seen)
    try:
        idx = 0
        for size in range(1, 131):
            with sqlite.begin() as conn:
                rows = [item_row(ev, i) for i in range(idx, idx + size)]
                assert len(insert_many(conn, ITEMS, rows, unique=UNIQUE)) == size
            idx += size
    finally:
        event.remove(sqlite, "before_cursor_execute", seen)
    assert len(texts) <= 9  # 1, 2, 4, ..., 128 rows (a full page is larger here)
    with Session(sqlite) as session:
        assert find_item(session=session, evaluation_id=ev, key=f"k{idx - 1}") is not None


@pytest.mark.postgres
def test_postgres_skips_keys_already_stored_and_writes_the_rest(postgres: Engine) -> None:
    engine = postgres
    _, _, ev = seed(engine, total=4)
    with engine.begin() as conn:
        assert len(insert_many(conn, ITEMS, [_full_row(ev, 1)], unique=UNIQUE)) == 1
    with engine.begin() as conn:  # key 1 is skipped, the rest go in
        rows = [_full_row(ev, i) for i in range(4)]
        assert len(insert_many(conn, ITEMS, rows, unique=UNIQUE)) == 3
    assert [row[1] for row in _stored(engine, ev)] == [0, 1, 2, 3]  # (key, idx, ...)


@pytest.mark.postgres
def test_a_connection_lost_mid_copy_is_a_transient_error(postgres: Engine) -> None:
    """What the store's retries and the run's outage handling look for: SQLAlchemy's error, marked as a lost
    connection, not the driver's own."""
    engine = postgres
    _, _, ev = seed(engine, total=1)
    with engine.connect() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        with psycopg.connect(engine.url.set(drivername="postgresql").render_as_string(False)) as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(exc.OperationalError) as raised:
            insert_many(conn, ITEMS, [_full_row(ev, 0)])  # no key to keep unique: COPY
        assert raised.value.connection_invalidated and is_transient(raised.value)
        assert conn.invalidated  # its pooled connection is not handed out again
