"""The cached board equals the board computed now from the items, and follows the store when it changes."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlmodel import Session

from app.http.caching import etag_for
from app.runner.runtime import Runtime
from app.scoring import leaderboard
from app.scoring.leaderboard import Board, BoardQuery, compute_board
from app.services import board_cache
from app.services.board_cache import BoardCache, Render
from app.store import evaluations as ev_store
from app.store.models import WHOLE
from bench.board import seed_board


def cached(deps: Runtime, cache: BoardCache, query: BoardQuery) -> Board:
    with Session(deps.engine) as session:
        stamp = leaderboard.board_stamp(session, deps.library, query)
        return cache.board(session, deps.library, query, stamp)


def fresh(deps: Runtime, query: BoardQuery) -> Board:
    with Session(deps.engine) as session:
        return compute_board(session=session, library=deps.library, query=query, fresh=True)


def test_every_country_and_condition_slice_from_stored_figures_equals_the_items_recomputed(
    seeded: Runtime,
) -> None:
    cache = BoardCache()
    whole = cached(seeded, cache, BoardQuery())
    assert len(whole.rows) == 7
    queries = [BoardQuery(country=c) for c in seeded.library.countries]
    queries += [BoardQuery(condition=c) for c in seeded.library.conditions]
    shown = Counter()
    for query in queries:
        stored, recomputed = cached(seeded, cache, query), fresh(seeded, query)
        assert stored.rows == recomputed.rows, query
        assert stored.hidden == recomputed.hidden
        shown[bool(stored.rows)] += 1
    assert (
        shown[True] >= 5
    )  # the suite reaches several countries and conditions: the comparison is not vacuous
    sliced = cached(seeded, cache, BoardQuery(country="US"))
    assert {e.figures.n_items for _, e in sliced.rows} != {e.figures.n_items for _, e in whole.rows}


def test_a_country_and_a_condition_together_read_the_items_and_keep_them_apart(seeded: Runtime) -> None:
    query = BoardQuery(country="US", condition=next(iter(seeded.library.conditions)))
    both = cached(seeded, BoardCache(), query)
    assert both.rows == fresh(seeded, query).rows
    us = cached(seeded, BoardCache(), BoardQuery(country="US"))
    n_us = {e.evaluation_id: e.figures.n_items for _, e in us.rows}
    assert all(e.figures.n_items <= n_us[e.evaluation_id] for _, e in both.rows)


def test_the_board_is_ranked_by_score_and_a_column_sort_keeps_the_ranks(seeded: Runtime) -> None:
    cache = BoardCache()
    board = cached(seeded, cache, BoardQuery())
    scores = [e.figures.score.value for _, e in board.rows]
    assert scores == sorted(scores, reverse=True) and [r for r, _ in board.rows] == list(range(1, 8))
    by_name = cached(seeded, cache, BoardQuery(sort="model", order="asc"))
    assert [e.target_name for _, e in by_name.rows] == sorted(e.target_name for _, e in board.rows)
    assert {(r, e.evaluation_id) for r, e in by_name.rows} == {(r, e.evaluation_id) for r, e in board.rows}


@pytest.mark.parametrize("store", ["growing", "growing_on_postgres"])
def test_the_board_changes_when_a_new_public_evaluation_finishes(
    store: str, request: pytest.FixtureRequest
) -> None:
    growing: Runtime = request.getfixturevalue(store)
    cache = BoardCache()
    before = cached(growing, cache, BoardQuery(country="US"))
    assert cached(growing, cache, BoardQuery(country="US")) is before  # same stamp: the kept board
    (added,) = seed_board(growing, 1, seed=11)
    after = cached(growing, cache, BoardQuery(country="US"))
    assert len(after.rows) == len(before.rows) + 1
    assert added in {e.evaluation_id for _, e in after.rows}
    assert after.rows == fresh(growing, BoardQuery(country="US")).rows


def test_many_threads_asking_for_one_missing_board_build_it_once(
    seeded: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = Counter()
    release = threading.Event()
    real = board_cache.compute_board

    def counted(**kwargs: object) -> Board:
        builds[kwargs["query"]] += 1
        release.wait(timeout=30)  # hold the first build until every thread has asked
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(board_cache, "compute_board", counted)
    cache = BoardCache()
    query = BoardQuery(country="AU")
    results: list[Board] = []
    threads = [
        threading.Thread(target=lambda: results.append(cached(seeded, cache, query))) for _ in range(8)
    ]
    for t in threads:
        t.start()
    release.set()
    for t in threads:
        t.join(timeout=60)
    assert builds[query] == 1 and len(results) == 8 and all(r is results[0] for r in results)


@pytest.mark.parametrize("store", ["growing", "growing_on_postgres"])
def test_a_rewritten_report_moves_the_stamp_and_the_board_without_a_new_evaluation(
    store: str, request: pytest.FixtureRequest
) -> None:
    growing: Runtime = request.getfixturevalue(store)
    cache = BoardCache()
    before = cached(growing, cache, BoardQuery())
    last = before.rows[-1][1].evaluation_id
    with Session(growing.engine) as session:
        figures = ev_store.board_figures_of(session=session, evaluation_id=last)
        whole = figures[WHOLE]
        figures[WHOLE] = {**whole, "headline": {**whole["headline"], "score": 0.999}}
        ev_store.save_board_figures(
            session=session,
            evaluation_id=last,
            benchmark_version=growing.library.version,
            finished_at=before.rows[-1][1].finished,
            figures=figures,
        )
        session.commit()
    after = cached(growing, cache, BoardQuery())
    assert after.rows[0][1].evaluation_id == last and after.rows[0][1].figures.score.value == 0.999


def ids_render(session: Session, board: Board) -> bytes:
    """A view's body: the ids on the board in order (what a user would notice changing)."""
    return ",".join(e.evaluation_id for _, e in board.rows).encode()


def test_while_the_refresher_renders_a_changed_board_requests_get_the_previous_one_at_once(
    growing: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, library = BoardCache(check_s=0.05), growing.library
    serve = dict(engine=growing.engine, library=library, key="plain", query=BoardQuery(), render=ids_render)
    before, before_etag = cache.serve(**serve)
    cache.start(growing.engine, library)
    try:
        started, release = threading.Event(), threading.Event()
        real = board_cache.compute_board

        def held(**kwargs: object) -> Board:
            started.set()
            release.wait(timeout=30)
            return real(**kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(board_cache, "compute_board", held)
        (added,) = seed_board(growing, 1, seed=12)
        assert started.wait(timeout=30)  # the refresher saw the change and is rendering it
        assert cache.serve(**serve) == (before, before_etag)  # the previous board, its own ETag, no wait
        assert cache.cached("plain") == (before, before_etag)
        release.set()
        assert cache.catch_up()
        after, after_etag = cache.cached("plain") or (b"", "")
        assert added.encode() in after and added.encode() not in before
        assert after_etag == etag_for(after) != before_etag
    finally:
        release.set()
        cache.stop()


def test_prewarmed_views_are_rendered_before_anyone_asks_and_again_after_each_change(
    growing: Runtime,
) -> None:
    cache, library = BoardCache(check_s=0.05), growing.library
    renders: Counter[str] = Counter()

    def counted(name: str) -> Render:
        def render(session: Session, board: Board) -> bytes:
            renders[name] += 1
            return ids_render(session, board)

        return render

    cache.start(growing.engine, library)
    try:
        cache.prewarm([("us", BoardQuery(country="US"), counted("us"))])
        assert cache.catch_up()
        first = cache.cached("us")
        assert first is not None and renders["us"] == 1
        assert cache.catch_up() and renders["us"] == 1  # nothing changed: not rendered again
        (added,) = seed_board(growing, 1, seed=13)
        assert cache.catch_up()
        second = cache.cached("us")
        assert second is not None and added.encode() in second[0] and renders["us"] == 2
    finally:
        cache.stop()
    assert not cache.refreshing
