"""HTML edges: read the query, make one service call, render a template."""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.templating import Jinja2Templates
from sqlmodel import Session

from app.benchmark.loader import Library
from app.deps import AppState, LibraryDep, SessionDep, check_key, get_state
from app.http.caching import PUBLIC_CACHE, conditional_body
from app.pages import format as fmt
from app.pages.views import board_versions, board_view, report_view
from app.services import audit
from app.services.board import Board, BoardCache, Render, board_query, common_queries
from app.store.models import ApiKey

templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
templates.env.filters.update(pct=fmt.pct, interval=fmt.interval, score=fmt.score)
templates.env.globals.update(bar_width=fmt.bar_width)
_bearer = HTTPBearer(auto_error=False)
HTML = "text/html; charset=utf-8"


def viewer_key(
    request: Request,
    state: Annotated[AppState, Depends(get_state)],
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> ApiKey | None:
    """Browsers send no key and see public pages; a Bearer key (checked as the API does) adds its team's."""
    if credentials is None:
        return None
    return check_key(request, state, session, credentials)


def board_page_key(
    condition: str | None,
    country: str | None,
    version: str | None,
    suite: str | None,
    sort: str,
    order: str,
    page: int,
) -> Hashable:
    """One view of the HTML board: a request and the page rendered ahead for it share this key."""
    return ("board-page", condition, country, version, suite, sort, order, page)


def board_page_render(library: Library, page: int) -> Render:
    """Renders one page of rows of a board (PAGE_SIZE rows, whatever the board's size) as the HTML board.
    Links come from the board's query, never from a request: the page is kept and served to everyone."""

    def render(session: Session, board: Board) -> bytes:
        view = board_view(board=board, library=library, versions=board_versions(session=session), page=page)
        return templates.get_template("leaderboard.html").render(view=view).encode()

    return render


@asynccontextmanager
async def pages_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The first page of the common boards is rendered ahead (app/routers/public.py starts the refresher)."""
    library = app.state.helmbench.deps.library
    app.state.board_cache.prewarm(
        [
            (
                board_page_key(q.condition, q.country, q.version, q.suite, q.sort, q.order, 1),
                q,
                board_page_render(library, 1),
            )
            for q in common_queries(library)
        ]
    )
    yield


router = APIRouter(tags=["pages"], include_in_schema=False, lifespan=pages_lifespan)


@router.get("/", response_class=HTMLResponse)
async def leaderboard_page(
    request: Request,
    condition: Annotated[str | None, Query(max_length=64)] = None,
    country: Annotated[str | None, Query(max_length=8)] = None,
    version: Annotated[str | None, Query(max_length=64)] = None,
    suite: Annotated[str | None, Query(max_length=40)] = None,
    sort: Annotated[str, Query(max_length=32)] = "score",
    order: Literal["asc", "desc"] = "desc",
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> Response:
    """Rendered once per change of the board and kept, like the JSON board; async for the same reason."""
    key = board_page_key(condition, country, version, suite, sort, order, page)
    boards: BoardCache = request.app.state.board_cache
    hit = boards.cached(key)
    if hit is None:
        state = get_state(request)
        library = state.deps.library
        query = board_query(
            library,
            version=version,
            country=country,
            condition=condition,
            suite=suite,
            sort=sort,
            order=order,
        )
        hit = await run_in_threadpool(
            lambda: boards.serve(
                engine=state.deps.engine,
                library=library,
                key=key,
                query=query,
                render=board_page_render(library, page),
            )
        )
    body, etag = hit
    return conditional_body(request, body, etag=etag, media_type=HTML, cache_control=PUBLIC_CACHE)


@router.get("/evaluations/{evaluation_id}", response_class=HTMLResponse)
def report_page(
    request: Request,
    evaluation_id: str,
    session: SessionDep,
    library: LibraryDep,
    key: Annotated[ApiKey | None, Depends(viewer_key)],
) -> HTMLResponse:
    team_id = key.team_id if key else None
    view = report_view(session=session, library=library, evaluation_id=evaluation_id, team_id=team_id)
    if view is None:
        return templates.TemplateResponse(request, "not_found.html", {"what": evaluation_id}, status_code=404)
    if key is not None:  # a team's own page shows its failed items' transcripts
        audit.note(
            session=session,
            key=key,
            action=audit.READ_PAGE,
            object_type="evaluation",
            object_id=evaluation_id,
        )
    return templates.TemplateResponse(request, "report.html", {"view": view})
