"""A leaderboard request: pages with a cursor cover the board once and follow a row when the board moves, and an
unknown field or a foreign cursor is a problem naming it."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from app.errors import Invalid, Unreadable
from app.runner.runtime import Runtime
from app.scoring.leaderboard import Board, BoardQuery, compute_board
from app.services.board_query import board_query, decode_cursor, page


def computed(deps: Runtime) -> Board:
    with Session(deps.engine) as session:
        return compute_board(session=session, library=deps.library, query=BoardQuery())


def test_pages_with_a_cursor_cover_the_board_once_and_a_bad_cursor_names_the_field(
    seeded: Runtime,
) -> None:
    board = computed(seeded)
    seen, cursor = [], None
    while True:
        rows, cursor = page(board.rows, cursor, 3)
        seen += [e.evaluation_id for _, e in rows]
        if cursor is None:
            break
    assert seen == [e.evaluation_id for _, e in board.rows]
    for bad in ("not-a-cursor", "W10", "eyJhIjoxfQ", "WzAsIiJd" * 100):
        with pytest.raises(Unreadable) as raised:
            decode_cursor(bad)
        assert raised.value.field == "cursor"


def test_a_cursor_continues_after_its_row_when_the_board_moved(seeded: Runtime) -> None:
    rows = computed(seeded).rows
    first, cursor = page(rows, None, 3)
    moved = [rows[5], *rows[:5], *rows[6:]]  # a new row above: the last row seen is now one further down
    after, _ = page(moved, cursor, 2)
    assert [e.evaluation_id for _, e in after] == [e.evaluation_id for _, e in rows[3:5]]


def test_an_unknown_country_condition_suite_or_sort_is_a_problem_naming_it(seeded: Runtime) -> None:
    for field, value in (("country", "XX"), ("condition", "nope"), ("suite", "huge"), ("sort", "pillar:P9")):
        with pytest.raises(Invalid) as raised:
            board_query(seeded.library, **{field: value})
        assert raised.value.field == field
    assert board_query(seeded.library, country="US", sort="pillar:P1").sliced
