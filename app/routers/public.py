"""Public read endpoints: leaderboard, benchmark catalogue, health."""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlmodel import Session

from app.deps import LibraryDep, QueueDep, SessionDep, get_state
from app.documents.catalogue import Catalogue
from app.documents.report import EvaluationReport
from app.http.caching import (
    CATALOGUE_CACHE,
    PUBLIC_CACHE,
    conditional_body,
    conditional_json,
    json_bytes,
)
from app.http.openapi import NOT_MODIFIED, problems
from app.http.problems import DATABASE_RETRY_AFTER_S, Problem
from app.queue.database import QueueNotReady
from app.schemas import Health, Leaderboard, Readiness, ResultsPage
from app.scoring.leaderboard import Board
from app.services import audit
from app.services import results as results_service
from app.services.board_cache import BoardCache, Render, common_queries
from app.services.board_query import board_query, decode_cursor
from app.services.catalogue import catalogue_body, kept_catalogue_body
from app.services.leaderboard_csv import leaderboard_csv
from app.services.public_evaluations import public_evaluation_or_404, public_results
from app.services.results import leaderboard_page
from app.store import db
from app.store.retry import describe

DEFAULT_LIMIT = 100


def leaderboard_key(
    version: str | None,
    country: str | None,
    condition: str | None,
    suite: str | None,
    sort: str,
    order: str,
    limit: int,
    cursor: str | None,
    fmt: str = "json",
) -> Hashable:
    """One view of the board as JSON or CSV: a request and the view rendered ahead for it share this key."""
    return ("leaderboard", version, country, condition, suite, sort, order, limit, cursor, fmt)


def leaderboard_render(limit: int, cursor: str | None, fmt: str = "json") -> Render:
    """Renders one page of a board as the JSON board's body, or the same rows as CSV."""

    def render(session: Session, board: Board) -> bytes:
        page = leaderboard_page(board, cursor=cursor, limit=limit)
        return leaderboard_csv(page) if fmt == "csv" else json_bytes(page)

    return render


@asynccontextmanager
async def board_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The board's common views are rendered ahead of a request (app/background.py starts the refresher that renders
    them again when the board changes)."""
    deps = app.state.helmbench.deps
    boards: BoardCache = app.state.board_cache
    boards.prewarm(
        [
            (
                leaderboard_key(
                    q.version, q.country, q.condition, q.suite, q.sort, q.order, DEFAULT_LIMIT, None
                ),
                q,
                leaderboard_render(DEFAULT_LIMIT, None),
            )
            for q in common_queries(deps.library)
        ]
    )
    yield


router = APIRouter(tags=["public"], lifespan=board_lifespan)


_LEADERBOARD_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The board as JSON, or with `format=csv` the same rows as CSV: each interval as `_low` and "
        "`_high` columns, each pillar as a `pillar_<id>` column.",
        "content": {"text/csv": {"schema": {"type": "string"}}},
    }
}


@router.get(
    "/v1/leaderboard",
    response_model=Leaderboard,
    responses={**_LEADERBOARD_DOC, **NOT_MODIFIED, **problems(400, 503)},
)
async def get_leaderboard(
    request: Request,
    benchmark_version: Annotated[str | None, Query(max_length=64)] = None,
    country: Annotated[
        str | None, Query(max_length=8, description="Only items of users in this country.")
    ] = None,
    condition: Annotated[
        str | None, Query(max_length=64, description="Only items under this condition.")
    ] = None,
    suite: Annotated[str | None, Query(max_length=40, description="Only evaluations of this suite.")] = None,
    sort: Annotated[
        str, Query(max_length=32, description="score, pass_rate, model, n_items, finished, pillar:<id>")
    ] = "score",
    order: Literal["asc", "desc"] = "desc",
    limit: Annotated[int, Query(ge=1, le=1000)] = DEFAULT_LIMIT,
    cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page.")] = None,
    format: Literal["json", "csv"] = "json",  # noqa: A002 - the query parameter's public name
) -> Response:
    """Rendered once per change of the public, finished set and kept; a poll reads memory. After a change the
    previous board is served (with its own ETag) for the moment it takes to render the new one.

    Async with no sync dependencies on purpose: under polling each thread-pool round trip adds latency.
    """
    key = leaderboard_key(benchmark_version, country, condition, suite, sort, order, limit, cursor, format)
    boards: BoardCache = request.app.state.board_cache
    hit = boards.cached(key)
    if hit is None:
        state = get_state(request)
        query = board_query(
            state.deps.library,
            version=benchmark_version,
            country=country,
            condition=condition,
            suite=suite,
            sort=sort,
            order=order,
        )
        if cursor:
            decode_cursor(cursor)
        hit = await run_in_threadpool(
            lambda: boards.serve(
                engine=state.deps.engine,
                library=state.deps.library,
                key=key,
                query=query,
                render=leaderboard_render(limit, cursor, format),
            )
        )
    body, etag = hit
    if format == "csv":
        response = conditional_body(
            request, body, media_type="text/csv", etag=etag, cache_control=PUBLIC_CACHE
        )
        response.headers["Content-Disposition"] = 'attachment; filename="leaderboard.csv"'
        return response
    return conditional_json(request, body, etag=etag, cache_control=PUBLIC_CACHE)


@router.get("/v1/leaderboard/{evaluation_id}/results", response_model=ResultsPage, responses=NOT_MODIFIED)
def get_public_results(
    evaluation_id: str,
    request: Request,
    session: SessionDep,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> Response:
    """A published evaluation's items; transcripts only if its owner set share_transcripts."""
    evaluation = public_evaluation_or_404(session=session, evaluation_id=evaluation_id)
    if evaluation.share_transcripts:  # read without a key: logged as such
        audit.note(
            session=session,
            key=None,
            action=audit.READ_PUBLIC_RESULTS,
            object_type="evaluation",
            object_id=evaluation_id,
        )
    page = public_results(session=session, evaluation_id=evaluation_id, cursor=cursor, limit=limit)
    return conditional_json(request, json_bytes(page), cache_control=PUBLIC_CACHE)


@router.get(
    "/v1/leaderboard/{evaluation_id}/report",
    response_model=EvaluationReport,
    responses={**NOT_MODIFIED, **problems(409, 410)},
)
def get_public_report(
    evaluation_id: str, request: Request, session: SessionDep, library: LibraryDep
) -> Response:
    """A published evaluation's report (aggregates only), for dashboards and other sites."""
    evaluation = public_evaluation_or_404(session=session, evaluation_id=evaluation_id)
    body = results_service.report(session=session, evaluation=evaluation, library=library)
    return conditional_json(request, json_bytes(body), cache_control=PUBLIC_CACHE)


@router.get("/v1/benchmark", response_model=Catalogue, responses=NOT_MODIFIED)
async def get_benchmark(request: Request) -> Response:
    """Rendered once per benchmark version (at the API's start) and kept. Async with no sync dependencies: a
    poll answered from memory never waits for the thread pool; the one render (a tenth of a second) goes to a
    thread, so it never holds the loop."""
    library = get_state(request).deps.library
    body, etag = kept_catalogue_body(library) or await run_in_threadpool(catalogue_body, library)
    return conditional_json(request, body, etag=etag, cache_control=CATALOGUE_CACHE)


@router.get("/healthz", response_model=Health)
def healthz() -> Health:
    return Health(status="ok")


@router.get("/readyz", response_model=Readiness, responses=problems(503))
async def readyz(session: SessionDep, queue: QueueDep) -> Readiness:
    """Ready when the database and the queue answer; a 503 says which does not, and why."""
    try:
        await run_in_threadpool(db.ping, session=session)
    except Exception as exc:
        raise Problem(
            503,
            "Not ready",
            f"database unreachable: {describe(exc)}",
            field="database",
            headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)},
        ) from exc
    try:
        await queue.ping()
    except Exception as exc:
        raise Problem(
            503,
            "Not ready",
            (
                f"queue not served: {exc}"
                if isinstance(exc, QueueNotReady)
                else f"queue unreachable: {describe(exc)}"
            )[:300],
            field="queue",
            headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)},
        ) from exc
    return Readiness(status="ready", database="ok", queue="ok")
