"""One way to page a team's rows newest first by (created_at, id), for every list endpoint that does so."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

from app.problems import Problem
from app.store import evaluations as ev_store


class Stamped(Protocol):
    created_at: datetime
    id: str


RowT = TypeVar("RowT", bound=Stamped)


def newest_first(
    fetch: Callable[[int, str | None], Sequence[RowT]], limit: int, cursor: str | None
) -> tuple[list[RowT], str | None]:
    """The page and the cursor of the next one (None on the last): one row more is fetched to know if there is
    a next page, and a cursor this API did not issue is the caller's mistake, named as such."""
    try:
        rows = list(fetch(limit + 1, cursor))
    except ValueError as exc:
        raise Problem(422, "Invalid request", "cursor: not a cursor this API issued", field="cursor") from exc
    page = rows[:limit]
    more = len(rows) > limit
    return page, ev_store.encode_cursor(page[-1].created_at, page[-1].id) if more else None
