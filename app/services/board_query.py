"""A leaderboard request: its query validated against the library, its pages and their cursor, and a row as the
JSON board answers it. The board itself is computed in app/scoring/leaderboard.py."""

from __future__ import annotations

import base64
import json
from typing import Any, Literal

from app.benchmark.loader import Library
from app.errors import Invalid, Unreadable
from app.scoring import board as sb
from app.scoring.leaderboard import BoardQuery
from app.scoring.vocabulary import on_100
from app.store import paging

MAX_CURSOR = 200  # ours are a few dozen characters


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
        "score_100": on_100(f.score.value),
        "score_interval": [f.score.low, f.score.high] if f.score.low is not None else None,
        "quality": f.quality,
        "quality_100": on_100(f.quality),
        "band": f.band,
        "capped": f.capped,
        "cap": f.cap or None,
        "why": f.why or None,
        "pass_rate": f.pass_rate.value,
        "pass_rate_interval": [f.pass_rate.low, f.pass_rate.high] if f.pass_rate.low is not None else None,
        "pass_rate_basis": f.pass_rate.basis or None,
        "pillars": {p: r.value for p, r in f.pillars.items()},
        "pillar_intervals": {p: [r.low, r.high] for p, r in f.pillars.items() if r.low is not None},
        "pillar_basis": {p: r.basis for p, r in f.pillars.items() if r.basis},
        "sensitivity": f.sensitivity,
        "over_escalation": f.over_escalation,
        "ungraded_share": f.ungraded_share,
        "grader": f.grader,
        "n_items": f.n_items,
        "finished_at": e.finished,
    }
