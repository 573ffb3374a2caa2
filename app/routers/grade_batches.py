"""/v1/grade/batches: grade production logs in bulk; a JSONL upload graded in the background."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import structlog
from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from sse_starlette import EventSourceResponse

from app.deps import AppState, CurrentKey, LibraryDep, QueueDep, SessionDep, get_state
from app.documents.batch_report import BatchReport
from app.http.event_docs import event_stream
from app.http.openapi import problems
from app.http.problems import Problem
from app.queue.base import QueueUnavailable
from app.schemas import BadLinesPage, BatchResultsPage, GradeBatchAccepted, GradeBatchPublic
from app.services import audit, erasure
from app.services import grade_batches as service
from app.services.events import parse_last_event_id
from app.services.grade_batch_report import batch_report
from app.services.redaction import redactor_for
from app.store.grade_batches import shard_count
from app.store.models import GradeBatch

log = structlog.get_logger("helmbench.api")
router = APIRouter(prefix="/v1/grade/batches", tags=["grading"])
UPLOAD_PATH = "/v1/grade/batches"
StateDep = Annotated[AppState, Depends(get_state)]
JSONL_TYPES = ("application/x-ndjson", "application/jsonl")
SHOW_REDACTED_DOC = (
    "Mask e-mail addresses, phone numbers (crisis lines kept), street addresses and personal names in what is "
    "shown (reasons, checks, judge answers); what is stored is unchanged."
)

_UPLOAD_DOC: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "One transcript per line, each as POST /v1/grade takes it: "
        "{country, crisis_expected, crisis_category?, messages, reply}.",
        "content": {media: {"schema": {"type": "string"}} for media in JSONL_TYPES},
    }
}


def check_content_type(content_type: str | None) -> None:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media not in JSONL_TYPES:
        raise Problem(
            415,
            "Unsupported media type",
            f"Content-Type: {media or 'none'} given; a batch is JSONL ({' or '.join(JSONL_TYPES)})",
            field="Content-Type",
        )


@router.post(
    "",
    status_code=202,
    response_model=GradeBatchAccepted,
    openapi_extra=_UPLOAD_DOC,
    responses=problems(415),
)
async def upload_batch(
    request: Request,
    key: CurrentKey,
    state: StateDep,
    queue: QueueDep,
    response: Response,
    redact: Annotated[
        bool,
        Query(
            description="Mask e-mail addresses, phone numbers (crisis lines kept), street addresses and "
            "personal names before the lines are stored and graded."
        ),
    ] = False,
) -> GradeBatchAccepted:
    """Store every line of the upload, then grade the batch in the background (202 at once after the upload).

    A line that is not JSON or not a transcript is kept with its line number and the field at fault, and the
    rest are graded; watch `GET /v1/grade/batches/{id}`.
    """
    check_content_type(request.headers.get("content-type"))
    batch = await service.ingest(
        chunks=request.stream(),
        engine=state.deps.engine,
        settings=state.deps.settings,
        team_id=key.team_id,
        redactor=redactor_for(state.deps.library) if redact else None,
    )
    if batch.status != "succeeded":
        try:
            shards = shard_count(batch.last_line, state.deps.settings.grade_batch_shard_lines)
            await queue.enqueue_grade_batch(batch.id, shards)
        except QueueUnavailable as exc:  # stored is accepted: the next start of an API process queues it
            log.warning(
                "queue unreachable; the grade batch is queued later", batch_id=batch.id, error=str(exc)
            )
    response.headers["Location"] = f"{UPLOAD_PATH}/{batch.id}"
    return GradeBatchAccepted(id=batch.id, status=batch.status, lines=batch.lines, bad=batch.bad)


@router.get("/{batch_id}", response_model=GradeBatchPublic)
def get_batch(batch_id: str, key: CurrentKey, session: SessionDep) -> GradeBatchPublic:
    """Status and progress: lines uploaded, graded, and refused."""
    return service.public_batch(service.get_batch(session=session, team_id=key.team_id, batch_id=batch_id))


@router.delete("/{batch_id}", status_code=204, responses=problems(409))
async def delete_batch(
    batch_id: str,
    key: CurrentKey,
    session: SessionDep,
    state: StateDep,
    queue: QueueDep,
    keep_report: Annotated[
        bool, Query(description="Keep the aggregate report (no text in it); results then answer 410.")
    ] = False,
) -> Response:
    """Delete every line of the batch (grading stops); the owning team's keys or a platform admin."""
    jobs = await run_in_threadpool(
        erasure.delete_batch,
        session=session,
        settings=state.deps.settings,
        key=key,
        batch_id=batch_id,
        keep_report=keep_report,
    )
    try:
        await queue.drop(jobs)
    except QueueUnavailable as exc:  # a job left queued finds no line to grade
        log.warning("queue unreachable; jobs of a deleted grade batch left", error=str(exc))
    return Response(status_code=204)


def _readable(session: SessionDep, key: CurrentKey, batch_id: str, action: str) -> GradeBatch:
    """The team's batch whose lines are still kept, its read of them logged first."""
    batch = service.get_batch(session=session, team_id=key.team_id, batch_id=batch_id)
    erasure.check_transcripts_kept(batch)
    audit.note(session=session, key=key, action=action, object_type="grade_batch", object_id=batch_id)
    return batch


@router.get(
    "/{batch_id}/events",
    response_class=EventSourceResponse,
    responses=event_stream(
        "`progress` events, then one `end` when every line is settled.",
        {
            "progress": (GradeBatchPublic, "whenever more lines are settled; id: lines settled."),
            "end": (GradeBatchPublic, "once, when every line is settled (the stream then closes)."),
        },
    ),
)
def batch_events(
    batch_id: str,
    key: CurrentKey,
    session: SessionDep,
    state: StateDep,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)] = None,
) -> EventSourceResponse:
    """Live progress as Server-Sent Events, resumable with Last-Event-ID."""
    service.get_batch(session=session, team_id=key.team_id, batch_id=batch_id)
    session.close()  # the stream may last long: give the pooled connection back, each poll takes its own
    events = service.progress_events(
        engine=state.deps.engine,
        batch_id=batch_id,
        last_event_id=parse_last_event_id(last_event_id),
        poll_s=state.deps.settings.events_poll_s,
    )
    return EventSourceResponse(events, ping=15, headers={"Cache-Control": "no-store"})


@router.get("/{batch_id}/results", response_model=BatchResultsPage, responses=problems(410))
def get_batch_results(
    batch_id: str,
    key: CurrentKey,
    session: SessionDep,
    library: LibraryDep,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    redact: Annotated[bool, Query(description=SHOW_REDACTED_DOC)] = False,
) -> BatchResultsPage:
    """Graded lines in line order, each with what POST /v1/grade answers for it."""
    batch = _readable(session, key, batch_id, audit.READ_RESULTS)
    return service.results_page(
        session=session,
        batch=batch,
        cursor=cursor,
        limit=limit,
        redactor=redactor_for(library) if redact else None,
    )


@router.get("/{batch_id}/errors", response_model=BadLinesPage, responses=problems(410))
def get_batch_errors(
    batch_id: str,
    key: CurrentKey,
    session: SessionDep,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> BadLinesPage:
    """Refused lines by number, each with the field at fault and why."""
    batch = _readable(session, key, batch_id, audit.READ_ERRORS)
    return service.bad_lines_page(session=session, batch=batch, cursor=cursor, limit=limit)


EXPORT_MEDIA = {"jsonl": "application/x-ndjson", "csv": "text/csv"}
_EXPORT_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Every graded line, as an attachment: JSONL (`format=jsonl`: one object a line, its `line` "
        "and the fields POST /v1/grade answers) or CSV (`format=csv`: a header row, then one row a line).",
        "content": {media: {"schema": {"type": "string"}} for media in EXPORT_MEDIA.values()},
    }
}


@router.get(
    "/{batch_id}/export", response_class=StreamingResponse, responses={**_EXPORT_DOC, **problems(410)}
)
def export_batch(
    batch_id: str,
    key: CurrentKey,
    session: SessionDep,
    state: StateDep,
    format: Literal["csv", "jsonl"] = "jsonl",  # noqa: A002 - the query parameter's public name
    redact: Annotated[bool, Query(description=SHOW_REDACTED_DOC)] = False,
) -> StreamingResponse:
    """Every graded line, streamed a page at a time: CSV (one row a line) or JSONL (one result a line)."""
    batch = _readable(session, key, batch_id, audit.EXPORT)
    redactor = redactor_for(state.deps.library) if redact else None
    return StreamingResponse(
        service.export_chunks(state.deps.engine, batch.id, format, redactor),
        media_type=EXPORT_MEDIA[format],
        headers={"Content-Disposition": f'attachment; filename="{batch.id}.{format}"'},
    )


@router.get(
    "/{batch_id}/report",
    response_model=BatchReport,
    response_model_exclude_unset=True,
    responses=problems(410),
)
def get_batch_report(
    batch_id: str, key: CurrentKey, session: SessionDep, library: LibraryDep
) -> dict[str, Any]:
    """The evaluation report's metrics that free transcripts carry what they need for, and which they do not."""
    batch = service.get_batch(session=session, team_id=key.team_id, batch_id=batch_id)
    return batch_report(session=session, batch=batch, library=library)
