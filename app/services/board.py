"""The leaderboard, computed once per change of the board and kept: every poll of the same view reads memory.

A board is keyed by its query and the board stamp (app/store/evaluations.py: leaderboard_stamp), which every API
replica reads alike from the database. Rows come from the board figures written with each report (one small row
per evaluation, whole or per country or condition), so no request recomputes a report. Only what the store has
no figures for (a country and a condition together, or a report stored before figures were kept) is computed
from the stored report or the items, once per stamp. `BoardCache` renders each view (a page of the JSON board or
of the HTML board) once per stamp, in a background thread, while requests keep getting the previous version.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

import structlog
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.benchmark.loader import Library
from app.errors import Invalid, Unreadable
from app.http.caching import etag_for
from app.scoring import board as sb
from app.scoring.facets import build_facets
from app.scoring.report import stored_items
from app.store import evaluations as ev_store
from app.store import paging
from app.store.models import WHOLE, slice_name

log = structlog.get_logger("helmbench.board")
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
        raise Invalid("country", f"country: one of {', '.join(sorted(library.countries))}")
    if condition and condition not in library.conditions:
        raise Invalid("condition", "condition: a condition id of the benchmark")
    if suite and suite not in library.suites:
        raise Invalid("suite", f"suite: one of {', '.join(library.suites)}")
    if not sb.valid_sort(sort, library):
        raise Invalid("sort", f"sort: one of {', '.join(sb.SORTS)} or pillar:<id>")
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


Parse = Callable[[ev_store.BoardRecord], sb.Figures]


def parse_figures(record: ev_store.BoardRecord) -> sb.Figures:
    """A record's stored figures (a slice without a row: no item in it)."""
    return sb.figures(json.loads(record.figures) if record.figures else {})


def _entry(
    session: Session,
    library: Library,
    record: ev_store.BoardRecord,
    query: BoardQuery,
    fresh: bool,
    parse: Parse,
) -> sb.Entry | None:
    """A row: the stored figures; without them (or fresh) from the stored report, or the slice's items.
    None: the evaluation has no report (it failed), so it is not on the board."""
    if record.finished_at is not None and not fresh and _slice(query) is not None:
        return sb.Entry(
            record.evaluation_id,
            record.target_name,
            record.model,
            record.suite,
            record.finished_at,
            parse(record),
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


def _own_scale(library: Library, suite: str) -> bool:
    spec = library.suites.get(suite)
    return spec is not None and spec.kind in ("conversations", "simulated")


def compute_board(
    *,
    session: Session,
    library: Library,
    query: BoardQuery,
    records: list[ev_store.BoardRecord] | None = None,
    fresh: bool = False,
    parse: Parse = parse_figures,
) -> Board:
    """The board for a query. fresh=True recomputes it from the stored reports and the items (the reference the
    stored figures must equal); records may be passed in when the caller already read them for this stamp, and
    parse may remember figures it has parsed."""
    if records is None:
        records = read_records(session, library, query)
    entries = []
    for r in records:
        if query.suite and r.suite != query.suite:
            continue
        if not query.suite and _own_scale(library, r.suite):
            continue  # a conversation headline is not on the matrix's scale: ranked only on its suite's board
        entry = _entry(session, library, r, query, fresh, parse)
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


def _write_position(position: tuple[int, str]) -> str:
    raw = json.dumps(list(position), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _read_position(cursor: str) -> tuple[int, str]:
    if len(cursor) > MAX_CURSOR:
        raise ValueError(cursor[:20])
    position, evaluation_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    if not (isinstance(position, int) and position >= 0 and isinstance(evaluation_id, str)):
        raise ValueError(cursor[:20])
    return position, evaluation_id


# (position of the next row, id of the last row seen); the board has always refused a foreign one with a 400.
BY_POSITION: paging.Cursor[tuple[int, str], tuple[int, str]] = paging.Cursor(
    write=_write_position, read=_read_position, refusal=Unreadable
)


def decode_cursor(cursor: str | None) -> tuple[int, str] | None:
    """The position a cursor names; anything we did not issue is refused naming `cursor`."""
    return paging.after(BY_POSITION, cursor)


def page(
    rows: list[tuple[int, sb.Entry]], cursor: str | None, limit: int
) -> tuple[list[tuple[int, sb.Entry]], str | None]:
    """A page of rows after the cursor, and the cursor of the next page (None on the last). The cursor carries
    the last row's id, so a page after a change of the board continues after that row where it still is."""
    start = 0
    if (after := decode_cursor(cursor)) is not None:
        position, last_id = after
        ids = [e.evaluation_id for _, e in rows]
        if not (0 < position <= len(ids) and ids[position - 1] == last_id):
            position = ids.index(last_id) + 1 if last_id in ids else min(position, len(ids))
        start = position
    chunk = rows[start : start + limit]
    more = start + limit < len(rows)
    return chunk, BY_POSITION.write((start + limit, chunk[-1][1].evaluation_id)) if more and chunk else None


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
        "pillar_intervals": {p: [r.low, r.high] for p, r in f.pillars.items() if r.low is not None},
        "sensitivity": f.sensitivity,
        "over_escalation": f.over_escalation,
        "ungraded_share": f.ungraded_share,
        "grader": f.grader,
        "n_items": f.n_items,
        "finished_at": e.finished,
    }


Render = Callable[[Session, Board], bytes]


@dataclass(slots=True)
class _View:
    """One rendered view of a board (a page of the JSON board, a page of the HTML board) and how to render it
    again; `stamp` is the board stamp it was rendered at (None: never rendered)."""

    query: BoardQuery
    render: Render
    pinned: bool = False  # a common view: rendered again after every change, asked for or not
    served: tuple[Stamp, bytes, str] | None = None  # (stamp, body, etag), replaced whole: read as one
    used: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def stamp(self) -> Stamp | None:
        return self.served[0] if self.served else None

    def publish(self, stamp: Stamp, body: bytes) -> None:
        self.served = (stamp, body, etag_for(body))


class BoardCache:
    """Boards and their rendered views, computed once per change of the board and served from memory.

    A refresher thread (`start`) reads the board stamp every `check_s` and, when it moved, renders again the
    views asked for lately and the common ones (`prewarm`), one at a time, while requests keep getting the
    previous version with its own ETag: a request waits only for a view that was never rendered. Without the
    thread (a cache used on its own), a request that finds the stamp moved renders the view itself."""

    def __init__(self, max_views: int = 512, check_s: float = 0.5, keep_s: float = 300.0) -> None:
        self.max_views, self.check_s, self.keep_s = max_views, check_s, keep_s
        self._lock = threading.Lock()
        self._views: OrderedDict[Hashable, _View] = OrderedDict()
        self._boards: OrderedDict[BoardQuery, tuple[Stamp, Board]] = OrderedDict()
        # (version, slice) -> (stamp, records, evaluation id -> (digest of the stored text, parsed figures))
        self._slices: dict[Hashable, tuple[Stamp, list[ev_store.BoardRecord], dict[str, Any]]] = {}
        self._stamps: dict[str, tuple[Stamp, float]] = {}  # version -> (stamp, when read)
        self._building: dict[Hashable, threading.Lock] = {}
        self._deps: tuple[Engine, Library] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._rounds = threading.Condition()
        self._started = self._finished = 0  # refresher rounds

    # -- requests ------------------------------------------------------------------------------------------

    def cached(self, key: Hashable) -> tuple[bytes, str] | None:
        """(body, etag) from memory, no I/O: a rendered view the refresher keeps current (the previous version
        while it renders the next), or one whose stamp was read within check_s. None: ask `serve`."""
        view = self._views.get(key)
        served = view.served if view is not None else None
        if view is None or served is None:
            return None
        version = view.query.version or (self._deps[1].version if self._deps else None)
        known = self._stamps.get(version) if version else None
        if not self.refreshing and (known is None or time.monotonic() - known[1] >= self.check_s):
            return None
        view.used = time.monotonic()
        if known is not None and known[0] != served[0]:
            self._wake.set()  # asked for while stale: render it in the refresher's next round
        return served[1], served[2]

    def serve(
        self, *, engine: Engine, library: Library, key: Hashable, query: BoardQuery, render: Render
    ) -> tuple[bytes, str]:
        """(body, etag) of one view: the one rendered at the current stamp, else the previous one (being
        rendered again in the background); rendered here only if it never was (once, whoever else asks)."""
        self._deps = self._deps or (engine, library)
        view = self._view(key, query, render)
        with Session(engine) as session:
            stamp = self._stamp(session, library, query.version or library.version)
            served = view.served
            if served is not None and (served[0] == stamp or self.refreshing):
                if served[0] != stamp:
                    self._wake.set()
                return served[1], served[2]
            return self._render(view, session, library, stamp)

    # -- the refresher -------------------------------------------------------------------------------------

    @property
    def refreshing(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, engine: Engine, library: Library) -> None:
        """Start the refresher (once): the board is rendered again when it changes, not when asked for."""
        self._deps = (engine, library)
        if self.refreshing:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._refresh_loop, name="board-refresher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the refresher, letting a render in progress finish (no query is left running)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        self._thread = None

    def prewarm(self, views: list[tuple[Hashable, BoardQuery, Render]]) -> None:
        """Views everyone asks for (the plain board, each country, each sort): rendered in the background now
        and after every change, so no request waits for them."""
        for key, query, render in views:
            self._view(key, query, render, asked=False).pinned = True
        self._wake.set()

    def catch_up(self, timeout: float = 60.0) -> bool:
        """Wait until the refresher has read the stamp and rendered what changed, in a round begun after this
        call: whatever changed before it is then served. False if it did not within timeout."""
        if not self.refreshing:
            return False
        with self._rounds:
            target = self._started + 1  # the round in progress may have read the stamp before the change
            self._wake.set()
            return self._rounds.wait_for(lambda: self._finished >= target, timeout=timeout)

    def _refresh_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.check_s)
            self._wake.clear()
            if self._stop.is_set():
                break
            with self._rounds:
                self._started += 1
            try:
                self._refresh()
            except Exception:  # a database outage: keep serving what is kept, read again next round
                log.warning("board refresh failed; serving the kept boards", exc_info=True)
            with self._rounds:
                self._finished += 1
                self._rounds.notify_all()

    def _refresh(self) -> None:
        """One round: read the stamps, render again the stale views worth it (most recently asked for first),
        then publish them together, so the JSON board and the pages never disagree once a client sees a change.
        A view never rendered is published at once: there is nothing to disagree with."""
        if self._deps is None:
            return
        engine, library = self._deps
        with self._lock:
            views = list(self._views.values())
        versions = {v.query.version or library.version for v in views}
        now = time.monotonic()
        rendered: list[tuple[_View, Stamp, bytes]] = []
        with Session(engine) as session:
            stamps = {v: self._stamp(session, library, v, max_age=0.0) for v in versions}
            stale = [
                view
                for view in views
                if view.stamp != stamps[view.query.version or library.version]
                and (
                    now - view.used < self.keep_s
                    # a pinned view follows its board even when the board empties (the last entry deleted)
                    or (
                        view.pinned
                        and (
                            view.stamp is not None
                            or _has_entries(stamps[view.query.version or library.version])
                        )
                    )
                )
            ]
            stale.sort(key=lambda v: (v.stamp is not None, -v.used))
            for view in stale:
                if self._stop.is_set():
                    break
                stamp = stamps[view.query.version or library.version]
                try:
                    if view.stamp is None:
                        self._render(view, session, library, stamp)
                    else:
                        board = self.board(session, library, view.query, stamp)
                        rendered.append((view, stamp, view.render(session, board)))
                except Exception:  # one view's bug must not hold back the others
                    log.exception("board view failed to render", query=str(view.query))
        with self._lock:
            for view, stamp, body in rendered:
                view.publish(stamp, body)

    # -- building ------------------------------------------------------------------------------------------

    def _stamp(self, session: Session, library: Library, version: str, max_age: float | None = None) -> Stamp:
        """The version's board stamp, read from the database at most once per check_s (max_age)."""
        known = self._stamps.get(version)
        age = self.check_s if max_age is None else max_age
        if known is not None and time.monotonic() - known[1] < age:
            return known[0]
        stamp = ev_store.leaderboard_stamp(session=session, benchmark_version=version)
        self._stamps[version] = (stamp, time.monotonic())
        return stamp

    def _view(self, key: Hashable, query: BoardQuery, render: Render, asked: bool = True) -> _View:
        """The view kept under key (made if new); asked: a request wants it now (a prewarm does not)."""
        with self._lock:
            view = self._views.get(key)
            if view is None:
                view = self._views[key] = _View(query, render)
            if asked:
                view.used = time.monotonic()
            self._views.move_to_end(key)
            while len(self._views) > self.max_views:
                self._views.popitem(last=False)
            return view

    def _render(self, view: _View, session: Session, library: Library, stamp: Stamp) -> tuple[bytes, str]:
        """Render a view at this stamp and publish it; once, whoever asks meanwhile."""
        with view.lock:
            if view.served is None or view.served[0] != stamp:
                view.publish(stamp, view.render(session, self.board(session, library, view.query, stamp)))
            assert view.served is not None
            return view.served[1], view.served[2]

    def _builder(self, key: Hashable) -> threading.Lock:
        with self._lock:
            if len(self._building) > 4 * self.max_views:
                self._building = {k: v for k, v in self._building.items() if v.locked()}
            return self._building.setdefault(key, threading.Lock())

    def _cached_board(self, query: BoardQuery, stamp: Stamp) -> Board | None:
        with self._lock:
            hit = self._boards.get(query)
            return hit[1] if hit is not None and hit[0] == stamp else None

    def board(self, session: Session, library: Library, query: BoardQuery, stamp: Stamp) -> Board:
        """The board for this query at this stamp, computed at most once (threads asking meanwhile wait)."""
        board = self._cached_board(query, stamp)
        if board is not None:
            return board
        with self._builder(query):
            board = self._cached_board(query, stamp)
            if board is not None:
                return board
            records, parse = self._slice_records(session, library, query, stamp)
            board = compute_board(session=session, library=library, query=query, records=records, parse=parse)
            with self._lock:
                self._boards[query] = (stamp, board)
                self._boards.move_to_end(query)
                while len(self._boards) > self.max_views:
                    self._boards.popitem(last=False)
            return board

    def _slice_records(
        self, session: Session, library: Library, query: BoardQuery, stamp: Stamp
    ) -> tuple[list[ev_store.BoardRecord], Parse]:
        """The records of one stored slice at this stamp (shared by every sort and suite of it), and a parse
        that reuses the figures of a record whose stored text is unchanged: after a change only the new or
        rewritten evaluations are parsed, not the thousand others."""
        key = (query.version or library.version, _slice(query))
        with self._builder(("slice", key)):
            kept = self._slices.get(key)
            if kept is not None and kept[0] == stamp:
                return kept[1], kept[2]["parse"]
            before: dict[str, tuple[bytes, sb.Figures]] = kept[2]["parsed"] if kept else {}
            parsed: dict[str, tuple[bytes, sb.Figures]] = {}

            def parse(record: ev_store.BoardRecord) -> sb.Figures:
                digest = hashlib.blake2b((record.figures or "").encode(), digest_size=16).digest()
                hit = parsed.get(record.evaluation_id) or before.get(record.evaluation_id)
                if hit is None or hit[0] != digest:
                    hit = (digest, parse_figures(record))
                parsed[record.evaluation_id] = hit
                return hit[1]

            records = read_records(session, library, query)
            self._slices[key] = (stamp, records, {"parsed": parsed, "parse": parse})
            return records, parse


def _has_entries(stamp: Stamp) -> bool:
    """Whether a board has public evaluations (the stamp's count): common views of an empty board (a fresh
    service, a test) are rendered when asked for, not ahead."""
    return bool(stamp[0]) if isinstance(stamp, tuple) else True


def common_queries(library: Library) -> list[BoardQuery]:
    """The views everyone asks for, rendered ahead: the plain board, each country, each column sort in the order
    its header links to. Conditions and pillar sorts are rendered when first asked for, then kept current while
    asked for: each view rendered ahead costs CPU after every change, shared with the requests being served."""
    queries = [BoardQuery()]
    queries += [BoardQuery(country=c) for c in sorted(library.countries)]
    queries += [BoardQuery(sort=s, order="asc" if s == "model" else "desc") for s in sb.SORTS if s != "score"]
    return queries
