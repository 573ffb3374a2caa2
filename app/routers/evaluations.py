"""/v1/evaluations: start, watch, cancel, page through results, read the report."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import structlog
from fastapi import APIRouter, Body, Depends, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from app.deps import (
    AppState,
    CurrentKey,
    LibraryDep,
    QueueDep,
    SecretsDep,
    SessionDep,
    SettingsDep,
    get_state,
)
from app.documents.report import EvaluationReport
from app.errors import Conflict, NotFound
from app.http.caching import PRIVATE_CACHE, conditional_json, json_bytes
from app.http.examples import START_EVALUATION
from app.http.openapi import NOT_MODIFIED, problems
from app.queue.base import QueueUnavailable
from app.routers.result_query import ResultFiltersDep
from app.schemas import (
    EvaluationAccepted,
    EvaluationCreate,
    EvaluationPage,
    EvaluationPublic,
    ResultsPage,
    RunPlan,
)
from app.services import audit, erasure, exports
from app.services import results as results_service
from app.services.evaluations import create_evaluation, public_evaluation
from app.services.events import status_document
from app.services.probes import prober
from app.services.redaction import redact_results, redactor_for
from app.services.result_filters import item_filter
from app.store import evaluations as ev_store
from app.store import paging
from app.store.models import Evaluation
from app.store.statuses import TERMINAL

log = structlog.get_logger("helmbench.api")
router = APIRouter(prefix="/v1/evaluations", tags=["evaluations"])


def _get(session: SessionDep, team_id: str, evaluation_id: str) -> Evaluation:
    evaluation = ev_store.get_evaluation(session=session, team_id=team_id, evaluation_id=evaluation_id)
    if evaluation is None:
        raise NotFound("evaluation_id", f"no evaluation {evaluation_id!r}")
    return evaluation


@router.post("", status_code=202, response_model=EvaluationAccepted, responses=problems(404, 409))
async def start_evaluation(
    body: Annotated[EvaluationCreate, Body(openapi_examples=START_EVALUATION)],
    key: CurrentKey,
    session: SessionDep,
    settings: SettingsDep,
    library: LibraryDep,
    queue: QueueDep,
    secrets: SecretsDep,
    response: Response,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=200)] = None,
) -> EvaluationAccepted:
    # In a thread, commit included: the probe's calls and the URL checks' DNS (run back on this loop) may take
    # seconds, and the checks, the cost plan and the commit are database work that would hold every other request.
    def create() -> tuple[Evaluation, bool]:
        evaluation, created = create_evaluation(
            session=session,
            settings=settings,
            library=library,
            team_id=key.team_id,
            body=body,
            idempotency_key=idempotency_key,
            secrets=secrets,
            probe=prober(settings, body.probe),
        )
        session.commit()
        session.refresh(evaluation)  # loaded here: a lazy load after the commit would query on the loop
        return evaluation, created

    evaluation, created = await run_in_threadpool(create)
    if created:
        try:
            await queue.enqueue_shards(evaluation.id, evaluation.shards)
        except QueueUnavailable as exc:  # stored is accepted: the reconciler queues it once the queue is back
            log.warning(
                "queue unreachable; the evaluation is queued later",
                evaluation_id=evaluation.id,
                error=str(exc),
            )
    response.headers["Location"] = f"/v1/evaluations/{evaluation.id}"
    return EvaluationAccepted(
        id=evaluation.id,
        status=evaluation.status,  # type: ignore[arg-type]
        plan=RunPlan(**evaluation.plan) if evaluation.plan else None,
    )


@router.get("", response_model=EvaluationPage)
def list_evaluations(
    key: CurrentKey,
    session: SessionDep,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> EvaluationPage:
    rows, next_cursor = paging.page(
        paging.NEWEST_FIRST,
        lambda after, n: ev_store.list_evaluations(
            session=session, team_id=key.team_id, limit=n, after=after
        ),
        cursor,
        limit,
    )
    return EvaluationPage(
        items=[public_evaluation(session=session, evaluation=r) for r in rows], next_cursor=next_cursor
    )


@router.get("/{evaluation_id}", response_model=EvaluationPublic, responses=NOT_MODIFIED)
async def get_evaluation(evaluation_id: str, request: Request, key: CurrentKey) -> Response:
    """What dashboards poll: answered from memory; one rebuild (a row and a count) per half second at most,
    however many poll, while the others get the last body. Unchanged answers are 304s.

    Async and without a request session, so a poll answered from memory skips the thread pool.
    """
    found = await status_document(
        engine=request.app.state.helmbench.deps.engine,
        documents=request.app.state.status_documents,
        team_id=key.team_id,
        evaluation_id=evaluation_id,
    )
    if found is None:
        raise NotFound("evaluation_id", f"no evaluation {evaluation_id!r}")
    body, etag = found
    return conditional_json(request, body, etag=etag, cache_control=PRIVATE_CACHE)


@router.post("/{evaluation_id}/cancel", response_model=EvaluationPublic, responses=problems(409))
def cancel_evaluation(evaluation_id: str, key: CurrentKey, session: SessionDep) -> EvaluationPublic:
    evaluation = _get(session, key.team_id, evaluation_id)
    if evaluation.status in TERMINAL:
        raise Conflict("status", f"the evaluation is already {evaluation.status}")
    ev_store.request_cancel(session=session, evaluation=evaluation)
    session.commit()
    session.refresh(evaluation)
    return public_evaluation(session=session, evaluation=evaluation)


@router.delete("/{evaluation_id}", status_code=204)
async def delete_evaluation(
    evaluation_id: str,
    request: Request,
    key: CurrentKey,
    session: SessionDep,
    library: LibraryDep,
    queue: QueueDep,
    keep_report: Annotated[
        bool, Query(description="Keep the aggregate report (no text in it); results then answer 410.")
    ] = False,
) -> Response:
    """Delete the evaluation and every message, reply and judge answer of it (a running one is cancelled);
    the owning team's keys or a platform admin. Without keep_report everything of it answers 404 after."""
    jobs = await run_in_threadpool(
        erasure.delete_evaluation,
        session=session,
        library=library,
        key=key,
        evaluation_id=evaluation_id,
        keep_report=keep_report,
    )
    # this process's kept status documents (others' age out within seconds; they hold no text)
    request.app.state.body_cache.forget(evaluation_id)
    try:
        await queue.drop(jobs)
    except QueueUnavailable as exc:  # a job left queued finds the evaluation gone and does nothing
        log.warning("queue unreachable; jobs of a deleted evaluation left", error=str(exc))
    return Response(status_code=204)


REDACT_DOC = "Mask e-mail addresses, phone numbers (crisis lines kept), street addresses and personal names."


@router.get("/{evaluation_id}/results", response_model=ResultsPage, responses=problems(410))
def get_evaluation_results(
    evaluation_id: str,
    key: CurrentKey,
    session: SessionDep,
    library: LibraryDep,
    filters: ResultFiltersDep,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    redact: Annotated[bool, Query(description=REDACT_DOC)] = False,
) -> ResultsPage:
    """Items in matrix order, a page at a time; the filters narrow them and the cursor pages the narrowed list."""
    where = item_filter(filters, library)
    evaluation = _get(session, key.team_id, evaluation_id)
    erasure.check_transcripts_kept(evaluation)
    audit.note(
        session=session, key=key, action=audit.READ_RESULTS, object_type="evaluation", object_id=evaluation_id
    )
    page = results_service.results_page(
        session=session, evaluation=evaluation, cursor=cursor, limit=limit, where=where
    )
    return redact_results(page, redactor_for(library), library) if redact else page


_EXPORT_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Every item the filters select, one row each, as an attachment: CSV (`format=csv`) or "
        "Parquet (`format=parquet`). Columns: the item's ids, country, crisis category, pillar, behaviour, "
        "verdict, 1-5 grade, error class, one `check_<name>` column per check (pass, fail or not-applicable) "
        "and the reply as the JSON results give it.",
        "content": {
            media: {"schema": {"type": "string", "format": "binary"}} for media in exports.MEDIA.values()
        },
    }
}


@router.get(
    "/{evaluation_id}/export", response_class=StreamingResponse, responses={**_EXPORT_DOC, **problems(410)}
)
def export_evaluation(
    evaluation_id: str,
    key: CurrentKey,
    session: SessionDep,
    library: LibraryDep,
    state: Annotated[AppState, Depends(get_state)],
    filters: ResultFiltersDep,
    format: Literal["csv", "parquet"] = "csv",  # noqa: A002 - the query parameter's public name
    redact: Annotated[bool, Query(description=REDACT_DOC)] = False,
) -> StreamingResponse:
    """Item-level results for analysis, streamed a page at a time (memory bounded whatever the evaluation's
    size); a transcript read, audited as one."""
    where = item_filter(filters, library)
    evaluation = _get(session, key.team_id, evaluation_id)
    erasure.check_transcripts_kept(evaluation)
    audit.note(
        session=session, key=key, action=audit.EXPORT, object_type="evaluation", object_id=evaluation_id
    )
    session.close()  # the download may last long: each page takes its own short session
    rows = exports.item_rows(
        engine=state.deps.engine,
        evaluation_id=evaluation_id,
        library=library,
        where=where,
        redactor=redactor_for(library) if redact else None,
    )
    body = exports.csv_chunks(rows) if format == "csv" else exports.parquet_chunks(rows)
    return StreamingResponse(
        body,
        media_type=exports.MEDIA[format],
        headers={"Content-Disposition": f'attachment; filename="{evaluation_id}-items.{format}"'},
    )


@router.get(
    "/{evaluation_id}/report",
    response_model=EvaluationReport,
    responses={**NOT_MODIFIED, **problems(409, 410)},
)
def get_evaluation_report(
    evaluation_id: str, request: Request, key: CurrentKey, session: SessionDep, library: LibraryDep
) -> Response:
    evaluation = _get(session, key.team_id, evaluation_id)
    body = results_service.report(session=session, evaluation=evaluation, library=library)
    return conditional_json(request, json_bytes(body), cache_control=PRIVATE_CACHE)
