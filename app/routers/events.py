"""GET /v1/evaluations/{id}/events: live progress as Server-Sent Events, resumable with Last-Event-ID."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from sse_starlette import EventSourceResponse

from app.deps import AppState, CurrentKey, SessionDep, get_state
from app.documents.events import EVALUATION_EVENTS
from app.errors import NotFound
from app.http.event_docs import event_stream
from app.services.events import parse_last_event_id, progress_events
from app.store import evaluations as ev_store

router = APIRouter(prefix="/v1/evaluations", tags=["evaluations"])


@router.get(
    "/{evaluation_id}/events",
    response_class=EventSourceResponse,
    responses=event_stream("`progress` events, then one `end` when it is over.", EVALUATION_EVENTS),
)
def evaluation_events(
    evaluation_id: str,
    request: Request,
    key: CurrentKey,
    session: SessionDep,
    state: Annotated[AppState, Depends(get_state)],
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)] = None,
) -> EventSourceResponse:
    if ev_store.get_evaluation(session=session, team_id=key.team_id, evaluation_id=evaluation_id) is None:
        raise NotFound("evaluation_id", f"no evaluation {evaluation_id!r}")
    session.close()  # the stream may last hours: give the pooled connection back now, each poll takes its own
    events = progress_events(
        engine=state.deps.engine,
        reads=request.app.state.progress_reads,
        evaluation_id=evaluation_id,
        last_event_id=parse_last_event_id(last_event_id),
        poll_s=state.deps.settings.events_poll_s,
        targets=state.deps.targets,
    )
    return EventSourceResponse(events, ping=15, headers={"Cache-Control": "no-store"})
