"""Every paged list pages the same way: each row once across pages, the last page says so, and a cursor the
API did not issue is refused naming `cursor` (with the status that list has always answered)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from app.errors import Invalid
from app.store import paging


@dataclass
class Row:
    id: str
    created_at: datetime
    number: int


ROWS = [Row(f"r{i:02}", datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=i // 2), i) for i in range(11)]
BY_NUMBER = paging.by_number(lambda row: row.number)


def after_number(after: int | None, n: int) -> list[Row]:
    return [r for r in ROWS if after is None or r.number > after][:n]


def newest_first(after: tuple[datetime, str] | None, n: int) -> list[Row]:
    ordered = sorted(ROWS, key=lambda r: (r.created_at, r.id), reverse=True)
    return [r for r in ordered if after is None or (r.created_at, r.id) < after][:n]


@pytest.mark.parametrize(("kind", "fetch"), [(BY_NUMBER, after_number), (paging.NEWEST_FIRST, newest_first)])
def test_pages_cover_every_row_once_and_the_last_has_no_next_cursor(kind: paging.Cursor, fetch) -> None:  # type: ignore[type-arg]
    seen, cursor, pages = [], None, 0
    while True:
        rows, cursor = paging.page(kind, fetch, cursor, 4)
        seen += [r.id for r in rows]
        pages += 1
        if cursor is None:
            break
    assert sorted(seen) == sorted(r.id for r in ROWS) and len(seen) == len(ROWS) and pages == 3


def test_a_page_that_ends_exactly_at_the_last_row_has_no_next_cursor() -> None:
    rows, cursor = paging.page(BY_NUMBER, after_number, None, len(ROWS))
    assert len(rows) == len(ROWS) and cursor is None


@pytest.mark.parametrize("kind", [BY_NUMBER, paging.NEWEST_FIRST])
@pytest.mark.parametrize("bad", ["garbage", "-1", "1.5", "²", "bm8tcGlwZQ=="])
def test_a_cursor_the_api_did_not_issue_is_refused_naming_cursor(kind: paging.Cursor, bad: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(Invalid) as raised:
        paging.page(kind, lambda after, n: [], bad, 10)
    assert raised.value.field == "cursor" and "not a cursor this API issued" in raised.value.detail


def test_no_cursor_and_an_empty_one_both_start_at_the_first_row() -> None:
    first, _ = paging.page(BY_NUMBER, after_number, None, 3)
    empty, _ = paging.page(BY_NUMBER, after_number, "", 3)
    assert [r.id for r in first] == [r.id for r in empty] == ["r00", "r01", "r02"]
