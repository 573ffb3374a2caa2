"""What the pages show, before any HTML: a board cut into pages that link to each other with the filters kept,
and a report whose visibility and transcripts follow the owner's choices."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import Session, select

from app.config import Settings
from app.pages import views
from app.runner.runtime import Runtime, build_runtime
from app.scoring.leaderboard import BoardQuery, compute_board
from app.services.board_query import board_query
from app.store.migrate import upgrade
from app.store.models import Evaluation, EvaluationItem, Team
from bench.board import seed_board


@pytest.fixture
def deps(settings: Settings) -> Iterator[Runtime]:
    upgrade(settings)  # the schema as `helmbench serve` migrates it
    made = build_runtime(settings)
    yield made
    made.engine.dispose()


def board(deps: Runtime, page: int, **query: Any) -> views.BoardView:
    with Session(deps.engine) as session:
        computed = compute_board(
            session=session, library=deps.library, query=board_query(deps.library, **query)
        )
    return views.board_view(board=computed, library=deps.library, versions=["0.9"], page=page)


def test_a_board_is_cut_into_pages_and_a_page_past_the_end_shows_the_last(
    deps: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_board(deps, 5, seed=4, suite="full")
    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    first, last, beyond = board(deps, 1), board(deps, 3), board(deps, 99)
    assert (first.total, first.pages, [r.rank for r in first.rows]) == (5, 3, [1, 2])
    assert [r.rank for r in last.rows] == [5] and beyond.page == 3 and beyond.rows == last.rows
    assert board(deps, 0).page == 1
    assert first.versions == sorted({"0.9", deps.library.version}), "older boards stay reachable"
    assert first.pillars == {"P1": "Detect distress", "P4": "Reasonable compromises"}


def test_links_keep_the_filters_and_leave_the_defaults_out() -> None:
    filtered = views.BoardView(
        filters=BoardQuery(country="AU", sort="pass_rate", order="asc"),
        version="1",
        rows=[],
        pillars={},
        conditions={},
        countries={},
        versions=[],
    )
    assert filtered.link(page=2) == "/?country=AU&sort=pass_rate&order=asc&page=2"
    assert filtered.link(country=None) == "/?country=AU&sort=pass_rate&order=asc", "None changes nothing"
    plain = views.BoardView(BoardQuery(), "1", [], {}, {}, {}, [])
    assert plain.link() == "/" and plain.link(sort="score") == "/?sort=score"


def one_evaluation(deps: Runtime, **changes: Any) -> Evaluation:
    """A finished evaluation with one failing item, changed as asked (visibility, sharing)."""
    (evaluation_id,) = seed_board(deps, 1, seed=1, suite="full")
    with Session(deps.engine, expire_on_commit=False) as session:
        item = session.exec(
            select(EvaluationItem).where(EvaluationItem.evaluation_id == evaluation_id)
        ).first()
        assert item is not None
        item.verdict, item.reasons = "FAIL", ["no pointer to human help"]
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        for name, value in changes.items():
            setattr(evaluation, name, value)
        session.add_all([item, evaluation])
        session.commit()
        return evaluation


def report(deps: Runtime, evaluation_id: str, team_id: str | None) -> views.ReportView | None:
    with Session(deps.engine) as session:
        return views.report_view(
            session=session, library=deps.library, evaluation_id=evaluation_id, team_id=team_id
        )


def test_a_private_report_is_its_team_s_alone_with_its_transcripts(deps: Runtime) -> None:
    evaluation = one_evaluation(deps, visibility="private")
    with Session(deps.engine) as session:
        other = Team(name="other")
        session.add(other)
        session.commit()
        other_id = other.id
    assert report(deps, evaluation.id, None) is None and report(deps, evaluation.id, other_id) is None
    own = report(deps, evaluation.id, evaluation.team_id)
    assert own is not None and own.transcripts and own.failing_total >= 1
    failing = next(f for f in own.failing if f.reasons == ["no pointer to human help"])
    assert failing.verdict == "FAIL" and failing.turns[-1]["role"] == "assistant", "the graded reply shown"
    assert failing.code.startswith(failing.scenario) and failing.title


def test_a_public_report_shows_transcripts_only_when_its_owner_shared_them(deps: Runtime) -> None:
    kept = one_evaluation(deps, visibility="public")
    shown = report(deps, kept.id, None)
    assert shown is not None and not shown.transcripts and shown.regressions == []
    assert all(f.turns == [] and f.system is None for f in shown.failing)
    shared = one_evaluation(deps, visibility="public", share_transcripts=True)
    with_turns = report(deps, shared.id, None)
    assert with_turns is not None and with_turns.transcripts and any(f.turns for f in with_turns.failing)
    assert {bar.label.split()[0] for bar in with_turns.pillars} <= {"P1", "P4"}
