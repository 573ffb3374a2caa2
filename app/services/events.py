"""Live progress of an evaluation as Server-Sent Events; ids are progress counters, so reconnects resume."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.http.body_cache import BodyCache, SingleFlight
from app.http.caching import json_bytes
from app.services.evaluations import public_evaluation
from app.shared_polls import SharedPolls
from app.store import progress as progress_store
from app.store.progress import Tally
from app.store.retry import is_transient
from app.store.statuses import TERMINAL

ACTIVE_FRESH_S = 0.5  # a running evaluation's status, polled by many, is rebuilt at most twice a second
# Every item written, the status about to settle (the report being stored): rebuilt on the next poll (at most
# every 50 ms), so the settle reaches pollers at once rather than up to a freshness window late.
SETTLING_FRESH_S = 0.05
TERMINAL_FRESH_S = 30.0  # a settled evaluation's status does not change
# A poller may get a status this much older than its freshness window while the one rebuild runs; past it
# (the database slow or away), pollers wait for the rebuild rather than read an ever older document.
STATUS_MAX_STALE_S = 5.0


def progress_body(state: Tally, window: dict[str, float] | None) -> dict[str, Any]:
    """The event's data: the store's tallies, the running pass rate and rate limiting (errors, retries, the
    live concurrency window)."""
    body = asdict(state)
    del body["target_id"]
    stalled = body.pop("stalled")
    return {
        **body,
        "window": window,
        "stalled": stalled,
        "pass_rate": round(state.passed / state.graded, 4) if state.graded else None,
        "rate_limited": state.errors_by_class.get("rate_limited", 0),
    }


def live_window(targets: Any, target_id: str) -> dict[str, float] | None:
    """The target's adaptive concurrency window, when its calls run in this process (the embedded default).

    With workers the window lives in their processes and this is None; the errors and retries still show.
    """
    for (tid, _), session in list(getattr(targets, "sessions", {}).items()):
        window = getattr(getattr(session, "gate", None), "window", None)
        if tid == target_id and window is not None:
            return {
                "limit": round(float(window.limit), 2),
                "maximum": window.maximum,
                "in_flight": window.in_flight,
            }
    return None


def _read(engine: Engine, evaluation_id: str) -> Tally | None:
    with Session(engine) as session:
        return progress_store.tally(session=session, evaluation_id=evaluation_id)


def parse_last_event_id(raw: str | None) -> int | None:
    """Our ids are non-negative integers in ASCII digits; anything else starts the stream afresh (a header is
    read as Latin-1, and `isdigit` accepts a superscript "²" that `int` refuses)."""
    text = raw.strip() if raw is not None else ""
    return int(text) if text.isascii() and text.isdigit() else None


async def progress_events(
    *,
    engine: Engine,
    reads: SharedPolls[Tally | None],
    evaluation_id: str,
    last_event_id: int | None,
    poll_s: float,
    targets: Any = None,
) -> AsyncIterator[dict[str, Any]]:
    """`progress` whenever more items are done than the client has seen (or it stalls or resumes), then one
    `end` once terminal. A poll the database cannot answer is skipped; the stream stays open.

    The id is the number of items done, so a client reconnecting with Last-Event-ID gets the next state, not a
    replay; a fresh client gets the current state at once. `reads`: the process's streams of one evaluation
    share a read of its tallies per period (app/shared_polls.py), however many dashboards follow it.
    """
    seen, seen_status = (last_event_id, None) if last_event_id is not None else (-1, "")
    seen_stalled: str | None = None
    read = functools.partial(_read, engine, evaluation_id)
    while True:
        try:
            state = await reads.get(evaluation_id, read)
        except SQLAlchemyError as exc:  # the database is down: keep the stream, look again next poll
            if not is_transient(exc):
                raise
            await asyncio.sleep(poll_s)
            continue
        if state is None:
            return
        window = None if state.terminal else live_window(targets, state.target_id)
        data = json.dumps(progress_body(state, window), separators=(",", ":"))
        if state.terminal:
            yield {"event": "end", "id": str(state.done), "data": data}
            return
        if seen_status is None:  # resumed: this status is what the client last saw with that id
            seen_status = state.status
        if state.done > seen or state.status != seen_status or state.stalled != seen_stalled:
            yield {"event": "progress", "id": str(state.done), "data": data, "retry": 1000}
            seen, seen_status, seen_stalled = state.done, state.status, state.stalled
        await asyncio.sleep(poll_s)


def status_key(team_id: str, evaluation_id: str) -> tuple[str, str, str]:
    return ("status", team_id, evaluation_id)


def status_body(
    *, session: Session, cache: BodyCache, team_id: str, evaluation_id: str
) -> tuple[bytes, str] | None:
    """The polled status document (body, etag), built now, or None if the team has no such evaluation.

    Built from one row without its stored report plus one count over an index, then kept for the freshness
    window (`status_document` rebuilds it once per window, however many poll).
    """
    evaluation = progress_store.status_row(session=session, team_id=team_id, evaluation_id=evaluation_id)
    if evaluation is None:
        return None
    public = public_evaluation(session=session, evaluation=evaluation)
    if evaluation.status in TERMINAL:
        fresh_s = TERMINAL_FRESH_S
    else:
        fresh_s = SETTLING_FRESH_S if public.progress.done >= public.progress.total else ACTIVE_FRESH_S
    return cache.put(status_key(team_id, evaluation_id), json_bytes(public), fresh_s)


async def status_document(
    *, engine: Engine, documents: SingleFlight, team_id: str, evaluation_id: str
) -> tuple[bytes, str] | None:
    """What a status poll gets: from memory, the last body while at most one rebuild per key runs."""

    def build() -> tuple[bytes, str] | None:
        with Session(engine) as session:
            return status_body(
                session=session, cache=documents.cache, team_id=team_id, evaluation_id=evaluation_id
            )

    return await documents.get(status_key(team_id, evaluation_id), build)
