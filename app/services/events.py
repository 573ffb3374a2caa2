"""Live progress of an evaluation as Server-Sent Events; ids are progress counters, so reconnects resume."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sqlalchemy import Engine, case, func
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from app.http_cache import BodyCache, json_bytes
from app.services.evaluations import public_evaluation
from app.store.evaluations import TERMINAL
from app.store.models import Evaluation, EvaluationItem
from app.store.retry import is_transient

GRADED = ("PASS", "PARTIAL", "FAIL")
ACTIVE_FRESH_S = 0.5  # a running evaluation's status, polled by many, is rebuilt at most twice a second
TERMINAL_FRESH_S = 30.0  # a settled evaluation's status does not change


@dataclass(frozen=True)
class ProgressState:
    status: str
    total: int
    done: int
    failed: int
    graded: int
    passed: int
    retries: int
    errors_by_class: dict[str, int] = field(default_factory=dict)
    target_id: str = ""
    window: dict[str, float] | None = None
    stalled: str | None = (
        None  # why a running evaluation has written nothing for a while (None while it moves)
    )

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def body(self) -> dict[str, Any]:
        """The event's data: progress, running pass rate, rate limiting (errors, retries, live window)."""
        body = asdict(self)
        del body["target_id"]
        return {
            **body,
            "pass_rate": round(self.passed / self.graded, 4) if self.graded else None,
            "rate_limited": self.errors_by_class.get("rate_limited", 0),
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


def progress_state(*, session: Session, evaluation_id: str) -> ProgressState | None:
    """Two aggregate queries over the evaluation's items (its index), however many items it has."""
    stmt = select(Evaluation.status, Evaluation.total, Evaluation.target_id, Evaluation.stalled).where(
        Evaluation.id == evaluation_id
    )
    head = session.exec(stmt).first()
    if head is None:
        return None
    item = EvaluationItem
    done, failed, graded, passed, retries = session.exec(
        select(
            func.count(),
            func.coalesce(func.sum(case((col(item.error_class).is_not(None), 1), else_=0)), 0),
            func.coalesce(func.sum(case((col(item.verdict).in_(GRADED), 1), else_=0)), 0),
            func.coalesce(func.sum(case((col(item.verdict) == "PASS", 1), else_=0)), 0),
            func.coalesce(func.sum(case((col(item.attempts) > 1, col(item.attempts) - 1), else_=0)), 0),
        ).where(item.evaluation_id == evaluation_id)
    ).one()
    errors = session.exec(
        select(item.error_class, func.count())
        .where(item.evaluation_id == evaluation_id, col(item.error_class).is_not(None))
        .group_by(col(item.error_class))
    ).all()
    return ProgressState(
        status=head[0],
        total=head[1],
        done=int(done),
        failed=int(failed),
        graded=int(graded),
        passed=int(passed),
        retries=int(retries),
        errors_by_class={str(k): int(n) for k, n in errors},
        target_id=head[2],
        stalled=head[3],
    )


def _read(engine: Engine, evaluation_id: str) -> ProgressState | None:
    with Session(engine) as session:
        return progress_state(session=session, evaluation_id=evaluation_id)


def parse_last_event_id(raw: str | None) -> int | None:
    """Our ids are non-negative integers; anything else starts the stream afresh."""
    return int(raw) if raw is not None and raw.strip().isdigit() else None


async def progress_events(
    *, engine: Engine, evaluation_id: str, last_event_id: int | None, poll_s: float, targets: Any = None
) -> AsyncIterator[dict[str, Any]]:
    """`progress` whenever more items are done than the client has seen (or it stalls or resumes), then one
    `end` once terminal. A poll the database cannot answer is skipped; the stream stays open.

    The id is the number of items done, so a client reconnecting with Last-Event-ID gets the next state, not a
    replay; a fresh client gets the current state at once.
    """
    seen, seen_status = (last_event_id, None) if last_event_id is not None else (-1, "")
    seen_stalled: str | None = None
    while True:
        try:
            state = await asyncio.to_thread(_read, engine, evaluation_id)
        except SQLAlchemyError as exc:  # the database is down: keep the stream, look again next poll
            if not is_transient(exc):
                raise
            await asyncio.sleep(poll_s)
            continue
        if state is None:
            return
        if not state.terminal:
            state = replace(state, window=live_window(targets, state.target_id))
        data = json.dumps(state.body(), separators=(",", ":"))
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
    """The polled status document (body, etag), or None if the team has no such evaluation.

    Built from one row without its stored report plus one count, then kept briefly so that a crowd of
    pollers costs a query per half second, not one per request.
    """
    key = status_key(team_id, evaluation_id)
    hit = cache.recent(key)
    if hit is not None:
        return hit
    stmt = (
        select(Evaluation)
        .options(defer(Evaluation.summary))
        .where(  # type: ignore[arg-type]
            Evaluation.id == evaluation_id, Evaluation.team_id == team_id
        )
    )
    evaluation = session.exec(stmt).first()
    if evaluation is None:
        return None
    body = json_bytes(public_evaluation(session=session, evaluation=evaluation))
    return cache.put(key, body, TERMINAL_FRESH_S if evaluation.status in TERMINAL else ACTIVE_FRESH_S)
