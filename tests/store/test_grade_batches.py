"""A grade batch's job is re-entrant: run again, it grades nothing twice and writes no second row."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from sqlmodel import Session, select

from app.config import Settings
from app.runner.grade_batch import run_grade_batch
from app.runner.runtime import build_runtime
from app.store import grade_batches as store
from app.store.bulk import PAGE_PARAMETERS
from app.store.keys import create_team
from app.store.migrate import upgrade
from app.store.models import GradeBatch, GradeBatchLine

TRANSCRIPT = {
    "country": "GB",
    "crisis_expected": True,
    "crisis_category": None,
    "messages": [{"role": "user", "content": "Everything feels pointless lately."}],
    "reply": "I'm sorry it feels that way. Are you safe right now? Samaritans answer on 116 123.",
}


def test_a_job_run_again_adds_no_rows_and_regrades_nothing(tmp_path: Path, mini_data_dir: Path) -> None:
    settings = Settings(
        var_dir=tmp_path, data_dir=mini_data_dir, database_url=None, grade_batch_chunk_lines=2
    )
    upgrade(settings)
    deps = build_runtime(settings)
    with Session(deps.engine) as session:
        team = create_team(session=session, name="t")
        batch_id = store.create_batch(session=session, team_id=team.id).id
        rows = [store.LineRow(n, transcript=json.dumps(TRANSCRIPT)) for n in range(1, 6)]
        rows.append(store.LineRow(6, error_field="body", error="body: not JSON"))
        store.add_lines(session=session, batch_id=batch_id, rows=rows, last_line=6)
        store.mark_queued(session=session, batch_id=batch_id)
        session.commit()
        # A first job graded line 2 and died before the rest.
        store.save_grades(
            session=session,
            batch_id=batch_id,
            grades=[store.GradeRow(2, "EARLIER", '{"verdict": "EARLIER"}')],
        )
        session.commit()

    assert asyncio.run(run_grade_batch(deps, batch_id, 1)) == "shard done"  # lines 5-8: line 5 graded
    assert asyncio.run(run_grade_batch(deps, batch_id, 1)) == "shard done"  # run again: nothing to grade
    assert asyncio.run(run_grade_batch(deps, batch_id, 0)) == "succeeded"  # lines 1-4, and the batch is done
    assert asyncio.run(run_grade_batch(deps, batch_id, 0)) == "not active"
    with Session(deps.engine) as session:
        # Written again outside any job: a grade already there is kept and not counted twice.
        assert (
            store.save_grades(session=session, batch_id=batch_id, grades=[store.GradeRow(1, "AGAIN", "{}")])
            == 0
        )
        session.commit()
        lines = session.exec(select(GradeBatchLine).order_by(GradeBatchLine.line)).all()
        batch = session.get(GradeBatch, batch_id)
        assert batch is not None and (batch.lines, batch.graded, batch.bad) == (6, 5, 1)
    assert [r.line for r in lines] == [1, 2, 3, 4, 5, 6]
    assert [r.verdict for r in lines] == ["PASS", "EARLIER", "PASS", "PASS", "PASS", None]
    deps.engine.dispose()


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_chunk_of_grades_counts_only_the_lines_it_wrote(
    tmp_path: Path, request: pytest.FixtureRequest, database: str
) -> None:
    """The count the batch keeps is the lines a chunk newly graded: PostgreSQL sums an executemany's row counts,
    SQLite writes a chunk as one UPDATE a page of lines (more than one page here)."""
    url = request.getfixturevalue("postgres_url") if database == "postgres" else None
    settings = Settings(var_dir=tmp_path, database_url=url)
    upgrade(settings)
    deps = build_runtime(settings)
    n_lines = PAGE_PARAMETERS // len(store.GradeRow._fields) + 10
    with Session(deps.engine) as session:
        team = create_team(session=session, name="t")
        batch_id = store.create_batch(session=session, team_id=team.id).id
        rows = [store.LineRow(n, transcript=json.dumps(TRANSCRIPT)) for n in range(1, n_lines + 2)]
        store.add_lines(session=session, batch_id=batch_id, rows=rows, last_line=n_lines + 1)
        session.commit()
        first = [store.GradeRow(n, "PASS", '{"verdict": "PASS"}') for n in range(1, n_lines)]
        assert store.save_grades(session=session, batch_id=batch_id, grades=first) == n_lines - 1
        again = [
            store.GradeRow(n, "FAIL", '{"verdict": "FAIL"}') for n in (n_lines - 2, n_lines - 1, n_lines)
        ]
        assert (
            store.save_grades(session=session, batch_id=batch_id, grades=again) == 1
        )  # only the last is new
        session.commit()
        batch = session.get(GradeBatch, batch_id)
        assert batch is not None and batch.graded == n_lines
        stored = session.exec(
            select(GradeBatchLine.verdict, GradeBatchLine.result).order_by(GradeBatchLine.line)
        )
        assert list(stored)[-4:] == [
            ("PASS", {"verdict": "PASS"}),
            ("PASS", {"verdict": "PASS"}),
            ("FAIL", {"verdict": "FAIL"}),
            (None, None),
        ]
        last = n_lines
        assert not store.has_ungraded(session=session, batch_id=batch_id, after_line=0, up_to_line=last)
        assert store.has_ungraded(session=session, batch_id=batch_id, after_line=0, up_to_line=last + 1)
    deps.engine.dispose()
