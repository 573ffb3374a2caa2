"""The leaderboard, computed once per change of the board and kept: every poll of the same view reads memory.

A board is keyed by its query and the board stamp (app/store/evaluations.py: leaderboard_stamp), which every API
replica reads alike from the database. Rows come from the board figures written with each report (one small row
per evaluation, whole or per country or condition), so no request recomputes a report. Only what the store has
no figures for (a country and a condition together, or a report stored before figures were kept) is computed
from the stored report or the items, once per stamp.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.benchmark.loader import Library
from app.http_cache import BodyCache
from app.problems import Problem
from app.scoring import board as sb
from app.scoring.facets import build_facets
from app.scoring.report import stored_items
from app.store import evaluations as ev_store
from app.store.models import WHOLE, slice_name

Stamp = Hashable
MAX_CURSOR = 200  # ours are a few dozen characters


@dataclass(frozen=True, slots=True)
class BoardQuery:
    """Which board: a benchmark version (None: the library's), an optional slice and suite, and an order."""

    version: str | None = None
    country: str | None = None
    condition: str | None = None
    suite: str | None = None
    sort: str = "score"
    order: Literal["asc", "desc"] = "desc"

    @property
    def sliced(self) -> bool:
        return bool(self.condition or self.country)

    def params(self) -> dict[str, str]:
        """The query as URL parameters, defaults left out, in a fixed order (links on a cached page)."""
        values = {
            "condition": self.condition,
            "country": self.country,
            "version": self.version,
            "suite": self.suite,
            "sort": None if self.sort == "score" else self.sort,
            "order": None if self.order == "desc" else self.order,
        }
        return {k: v for k, v in values.items() if v}


def board_query(
    library: Library,
    *,
    version: str | None = None,
    country: str | None = None,
    condition: str | None = None,
    suite: str | None = None,
    sort: str = "score",
    order: Literal["asc", "desc"] = "desc",
) -> BoardQuery:
    """A validated query; an unknown country, condition, suite or sort is a problem naming its field."""
    if country and country not in library.countries:
        raise Problem(
            422, "Invalid request", f"country: one of {', '.join(sorted(library.countries))}", field="country"
        )
    if condition and condition not in library.conditions:
        raise Problem(422, "Invalid request", "condition: a condition id of the benchmark", field="condition")
    if suite and suite not in library.suites:
        raise Problem(422, "Invalid request", f"suite: one of {', '.join(library.suites)}", field="suite")
    if not sb.valid_sort(sort, library):
        raise Problem(
            422, "Invalid request", f"sort: one of {', '.join(sb.SORTS)} or pillar:<id>", field="sort"
        )
    return BoardQuery(
        version=version or None,
        country=country or None,
        condition=condition or None,
        suite=suite or None,
        sort=sort,
        order=order,
    )


@dataclass(frozen=True, slots=True)
class Board:
    """A ranked board in its column order: (rank, entry) per row; `hidden` evaluations have no item in the slice."""

    query: BoardQuery
    version: str
    rows: list[tuple[int, sb.Entry]]
    hidden: int
    pillars: list[str]  # pillar ids with a column


def _slice(query: BoardQuery) -> str | None:
    """The stored slice a query reads; None for a country and a condition together (read from the items)."""
    if query.country and query.condition:
        return None
    if query.country:
        return slice_name("country", query.country)
    return slice_name("condition", query.condition) if query.condition else WHOLE


def _from_items(session: Session, library: Library, evaluation_id: str, query: BoardQuery) -> sb.Figures:
    facets = [
        f
        for f in build_facets(stored_items(session=session, evaluation_id=evaluation_id), library)
        if query.country in (None, f.country) and query.condition in (None, f.condition)
    ]
    return sb.figures(sb.slice_summary(facets, library))


def _entry(
    session: Session, library: Library, record: ev_store.BoardRecord, query: BoardQuery, fresh: bool
) -> sb.Entry | None:
    """A row: the stored figures; without them (or fresh) from the stored report, or the slice's items.
    None: the evaluation has no report (it failed), so it is not on the board."""
    if record.finished_at is not None and not fresh and _slice(query) is not None:
        figures = sb.figures(record.figures or {})  # a slice without a row: no item in it
        return sb.Entry(
            record.evaluation_id, record.target_name, record.model, record.suite, record.finished_at, figures
        )
    summary, finished_at = ev_store.stored_report(session=session, evaluation_id=record.evaluation_id)
    if summary is None or finished_at is None:
        return None
    sliced = query.sliced
    figures = _from_items(session, library, record.evaluation_id, query) if sliced else sb.figures(summary)
    return sb.Entry(
        record.evaluation_id, record.target_name, record.model, record.suite, finished_at, figures
    )


def read_records(session: Session, library: Library, query: BoardQuery) -> list[ev_store.BoardRecord]:
    version = query.version or library.version
    return ev_store.board_records(session=session, benchmark_version=version, slice=_slice(query) or WHOLE)


def compute_board(
    *,
    session: Session,
    library: Library,
    query: BoardQuery,
    records: list[ev_store.BoardRecord] | None = None,
    fresh: bool = False,
) -> Board:
    """The board for a query. fresh=True recomputes it from the stored reports and the items (the reference the
    stored figures must equal); records may be passed in when the caller already read them for this stamp."""
    if records is None:
        records = read_records(session, library, query)
    entries = []
    for r in records:
        if query.suite and r.suite != query.suite:
            continue
        entry = _entry(session, library, r, query, fresh)
        if entry is not None:
            entries.append(entry)
    shown = [e for e in entries if e.figures.n_items or not query.sliced]
    ranked = sb.rank(shown)
    pillars = sorted({p for _, e in ranked for p in e.figures.pillars} | set(library.pillars))
    return Board(
        query=query,
        version=query.version or library.version,
        rows=sb.ordered(ranked, query.sort, query.order),
        hidden=len(entries) - len(shown),
        pillars=pillars,
    )


def encode_cursor(position: int, evaluation_id: str) -> str:
    raw = json.dumps([position, evaluation_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, str]:
    """(position of the next row, id of the last row seen); anything we did not issue is a 400 naming `cursor`."""
    try:
        if len(cursor) > MAX_CURSOR:
            raise ValueError(cursor[:20])
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        position, evaluation_id = json.loads(raw)
        if isinstance(position, int) and position >= 0 and isinstance(evaluation_id, str):
            return position, evaluation_id
    except (binascii.Error, ValueError, TypeError):
        pass
    raise Problem(400, "Bad request", "cursor: not a cursor this API issued", field="cursor")


def page(
    rows: list[tuple[int, sb.Entry]], cursor: str | None, limit: int
) -> tuple[list[tuple[int, sb.Entry]], str | None]:
    """A page of rows after the cursor, and the cursor of the next page (None on the last). The cursor carries
    the last row's id, so a page after a change of the board continues after that row where it still is."""
    start = 0
    if cursor:
        position, last_id = decode_cursor(cursor)
        ids = [e.evaluation_id for _, e in rows]
        if not (0 < position <= len(ids) and ids[position - 1] == last_id):
            position = ids.index(last_id) + 1 if last_id in ids else min(position, len(ids))
        start = position
    chunk = rows[start : start + limit]
    more = start + limit < len(rows)
    return chunk, encode_cursor(start + limit, chunk[-1][1].evaluation_id) if more and chunk else None


class BoardCache:
    """Boards per (query, stamp), and the board records per (version, stamp), least recently used dropped.

    One thread builds a missing board while others asking for the same one wait for it, so a change of the board
    under a hundred pollers costs one build, not a hundred."""

    def __init__(self, max_boards: int = 256) -> None:
        self.max_boards = max_boards
        self._boards: OrderedDict[BoardQuery, tuple[Stamp, Board]] = OrderedDict()
        self._records: OrderedDict[Hashable, tuple[Stamp, list[ev_store.BoardRecord]]] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}
        # One build at a time: after a change, a dozen views rebuilding at once would share the GIL with the
        # event loop a dozen ways, and every poll answered from memory would wait its turn behind them.
        self._build_slot = threading.Lock()

    def _builder(self, key: Hashable) -> threading.Lock:
        with self._lock:
            return self._building.setdefault(key, threading.Lock())

    def _cached(self, query: BoardQuery, stamp: Stamp) -> Board | None:
        with self._lock:
            hit = self._boards.get(query)
            if hit is None or hit[0] != stamp:
                return None
            self._boards.move_to_end(query)
            return hit[1]

    def records(
        self, session: Session, library: Library, query: BoardQuery, stamp: Stamp
    ) -> list[ev_store.BoardRecord]:
        """The rows of one stored slice at this stamp, shared by every sort and suite of that slice."""
        key = (query.version or library.version, _slice(query))
        with self._builder(("records", key)):
            with self._lock:
                hit = self._records.get(key)
            if hit is not None and hit[0] == stamp:
                return hit[1]
            records = read_records(session, library, query)
            with self._lock:
                self._records[key] = (stamp, records)
                self._records.move_to_end(key)
                while len(self._records) > self.max_boards:
                    self._records.popitem(last=False)
            return records

    def board(self, session: Session, library: Library, query: BoardQuery, stamp: Stamp) -> Board:
        """The board for this query at this stamp, built at most once."""
        board = self._cached(query, stamp)
        if board is not None:
            return board
        with self._builder(query):
            return self._build(session, library, query, stamp)

    def latest(
        self, session: Session, library: Library, query: BoardQuery, stamp: Stamp
    ) -> tuple[Stamp, Board]:
        """(stamp, board): this stamp's board; while another thread builds it, the previous board and its stamp
        instead of a wait, so a change of the board under polling stalls no one."""
        board = self._cached(query, stamp)
        if board is not None:
            return stamp, board
        builder = self._builder(query)
        if not builder.acquire(blocking=False):
            with self._lock:
                previous = self._boards.get(query)
            if previous is not None:
                return previous
            builder.acquire()
        try:
            return stamp, self._build(session, library, query, stamp)
        finally:
            builder.release()

    def _build(self, session: Session, library: Library, query: BoardQuery, stamp: Stamp) -> Board:
        """Called holding the query's builder lock: another thread may have built it meanwhile."""
        board = self._cached(query, stamp)
        if board is not None:
            return board
        with self._build_slot:
            records = self.records(session, library, query, stamp)
            board = compute_board(session=session, library=library, query=query, records=records)
        with self._lock:
            self._boards[query] = (stamp, board)
            self._boards.move_to_end(query)
            while len(self._boards) > self.max_boards:
                self._boards.popitem(last=False)
            if len(self._building) > 4 * self.max_boards:
                self._building.clear()  # idle builder locks; one in use is still held by its thread
        return board


def board_stamp(session: Session, library: Library, query: BoardQuery) -> Stamp:
    version = query.version or library.version
    return ev_store.leaderboard_stamp(session=session, benchmark_version=version)


def entry_json(rank: int, e: sb.Entry) -> dict[str, Any]:
    """A board row as the JSON board's entry."""
    f = e.figures
    return {
        "rank": rank,
        "evaluation_id": e.evaluation_id,
        "target_name": e.target_name,
        "model": e.model,
        "suite": e.suite,
        "score": f.score.value,
        "score_interval": [f.score.low, f.score.high] if f.score.low is not None else None,
        "capped": f.capped,
        "why": f.why or None,
        "pass_rate": f.pass_rate.value,
        "pass_rate_interval": [f.pass_rate.low, f.pass_rate.high] if f.pass_rate.low is not None else None,
        "pass_rate_basis": f.pass_rate.basis or None,
        "pillars": {p: r.value for p, r in f.pillars.items()},
        "sensitivity": f.sensitivity,
        "over_escalation": f.over_escalation,
        "ungraded_share": f.ungraded_share,
        "n_items": f.n_items,
        "finished_at": e.finished,
    }


def board_body(
    *,
    engine: Engine,
    library: Library,
    bodies: BodyCache,
    boards: BoardCache,
    key: Hashable,
    query: BoardQuery,
    render: Callable[[Session, Board], bytes],
    fresh_s: float,
) -> tuple[bytes, str]:
    """(body, etag) of one view of a board: one stamp read; the board and the body are built only when the stamp
    moved (or the body cache's time to live ran out), then answered from memory for fresh_s. While one request
    rebuilds a changed board, the others get the previous body (public data may be seconds stale anyway)."""
    with Session(engine) as session:
        stamp = board_stamp(session, library, query)
        hit = bodies.current(key, stamp, fresh_s)
        if hit is not None:
            return hit
        used, board = boards.latest(session, library, query, stamp)
        if used != stamp:  # being rebuilt by another request: the previous board's body, not fresh for long
            return bodies.get_or_render(key, used, lambda: render(session, board))
        return bodies.get_or_render(key, stamp, lambda: render(session, board), fresh_s=fresh_s)
