"""The leaderboard for a query, computed from the board figures the store keeps with each report.

Rows come from the board figures written with each report (one small row per evaluation, whole or per country or
condition), so no request recomputes a report. Only what the store has no figures for (a country and a condition
together, or a report stored before figures were kept) is computed from the stored report or the items. The board
stamp (app/store/evaluations.py: leaderboard_stamp) moves with every change of a board, so a caller can keep a
board until it does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Literal

from sqlmodel import Session

from app.benchmark.loader import Library
from app.kinds.registry import conversation_kinds
from app.scoring import board as sb
from app.scoring.facets import build_facets
from app.scoring.report import stored_items
from app.store import evaluations as ev_store
from app.store.models import WHOLE, slice_name

Stamp = Hashable


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


@dataclass(frozen=True, slots=True)
class Board:
    """A ranked board in its column order: (rank, entry) per row; `hidden` evaluations have no item in the slice."""

    query: BoardQuery
    version: str
    rows: list[tuple[int, sb.Entry]]
    hidden: int
    pillars: list[str]  # pillar ids with a column
    pillar_names: dict[str, str] = field(default_factory=dict)  # id → the library's name


def stored_slice(query: BoardQuery) -> str | None:
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
    if record.finished_at is not None and not fresh and stored_slice(query) is not None:
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
    """The board rows the store keeps for the query's version and slice."""
    version = query.version or library.version
    return ev_store.board_records(
        session=session, benchmark_version=version, slice=stored_slice(query) or WHOLE
    )


def _own_scale(library: Library, suite: str) -> bool:
    """Whether a suite's headline is on a scale of its own (conversations), not the matrix's."""
    spec = library.suites.get(suite)
    return spec is not None and spec.kind in conversation_kinds()


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
        pillar_names={p: library.pillars[p].name for p in pillars if p in library.pillars},
    )


def board_stamp(session: Session, library: Library, query: BoardQuery) -> Stamp:
    """What moves with every change of the query's board: a board kept at an equal stamp is current."""
    version = query.version or library.version
    return ev_store.leaderboard_stamp(session=session, benchmark_version=version)
