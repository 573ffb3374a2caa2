"""One way to page every list the API serves: an opaque cursor the client passes back, read here once, and one
row more fetched than shown so the last page says so without a count query.

Each list keeps the cursor it has always issued (a row number, an id, a (created_at, id) pair, a board
position); a `Cursor` says how to write one from the last row shown and how to read it back.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session, col
from sqlmodel.sql.expression import SelectOfScalar

from app.errors import Invalid

KeyT = TypeVar("KeyT")
RowT = TypeVar("RowT")
BAD_CURSOR = "cursor: not a cursor this API issued"


@dataclass(frozen=True)
class Cursor(Generic[KeyT, RowT]):
    """How one list writes its cursor after a row and reads back the key the store pages after.

    `read` raises ValueError on anything this API did not issue; `refusal` is the error the client then sees.
    """

    write: Callable[[RowT], str]
    read: Callable[[str], KeyT]
    refusal: type[Invalid] = Invalid


def after(kind: Cursor[KeyT, RowT], cursor: str | None) -> KeyT | None:
    """The key a page starts after (None: the first page), or the kind's refusal naming `cursor`."""
    if not cursor:
        return None
    try:
        return kind.read(cursor)
    except (ValueError, TypeError, binascii.Error) as exc:
        raise kind.refusal("cursor", BAD_CURSOR) from exc


def page(
    kind: Cursor[KeyT, RowT],
    fetch: Callable[[KeyT | None, int], Sequence[RowT]],
    cursor: str | None,
    limit: int,
) -> tuple[list[RowT], str | None]:
    """The rows of one page and the cursor of the next (None on the last): `fetch(after, n)` returns up to n
    rows after the key, and one more than `limit` is asked for to know whether a next page exists."""
    rows = list(fetch(after(kind, cursor), limit + 1))
    shown = rows[:limit]
    return shown, kind.write(shown[-1]) if len(rows) > limit and shown else None


def detached_pages(
    engine: Engine, fetch: Callable[[Session, int], Sequence[RowT]], number: Callable[[RowT], int], start: int
) -> Iterator[list[RowT]]:
    """Every row `fetch(session, after)` pages through by number, a page at a time, each page read in its own
    short session and detached from it: no transaction held open while a slow client downloads an export."""
    after = start
    while True:
        with Session(engine) as session:
            rows = list(fetch(session, after))
            for row in rows:
                session.expunge(row)
        if not rows:
            return
        yield rows
        after = number(rows[-1])


def _counter(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise ValueError(text[:20])
    return int(text)


def by_number(number: Callable[[RowT], int | None]) -> Cursor[int, RowT]:
    """A cursor that is the row's number as digits (an item index, a line number, a delivery id)."""
    return Cursor(write=lambda row: str(number(row)), read=_counter)


class Stamped(Protocol):
    created_at: datetime
    id: str


def _write_stamp(row: Stamped) -> str:
    return base64.urlsafe_b64encode(f"{row.created_at.isoformat()}|{row.id}".encode()).decode()


def _read_stamp(text: str) -> tuple[datetime, str]:
    stamp, ident = base64.urlsafe_b64decode(text.encode()).decode().split("|", 1)
    return datetime.fromisoformat(stamp), ident


# Newest first by (created_at, id): evaluations and regressions.
NEWEST_FIRST: Cursor[tuple[datetime, str], Stamped] = Cursor(write=_write_stamp, read=_read_stamp)


def newest_first(
    stmt: SelectOfScalar[RowT], model: Any, after: tuple[datetime, str] | None, limit: int
) -> SelectOfScalar[RowT]:
    """`stmt` ordered newest first by (created_at, id), from after the key `NEWEST_FIRST` read, `limit` rows."""
    if after:
        created_at, ident = after
        stmt = stmt.where(
            (col(model.created_at) < created_at)
            | ((col(model.created_at) == created_at) & (col(model.id) < ident))
        )
    return stmt.order_by(col(model.created_at).desc(), col(model.id).desc()).limit(limit)
