"""HTML edges: read the query, make one service call, render a template."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.templating import Jinja2Templates
from sqlmodel import Session

from app.deps import AppState, LibraryDep, SessionDep, get_current_key, get_state
from app.http_cache import PUBLIC_CACHE, BodyCacheDep, conditional_body
from app.pages import format as fmt
from app.services.board import Board, board_body, board_query
from app.services.pages import board_versions, board_view, report_view

router = APIRouter(tags=["pages"], include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
templates.env.filters.update(pct=fmt.pct, interval=fmt.interval, score=fmt.score)
templates.env.globals.update(bar_width=fmt.bar_width)
_bearer = HTTPBearer(auto_error=False)
HTML = "text/html; charset=utf-8"
BOARD_CHECK_S = 1.0  # a load within a second of the last stamp check is answered from memory


def viewer_team(
    request: Request,
    state: Annotated[AppState, Depends(get_state)],
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str | None:
    """Browsers send no key and see public pages; a Bearer key (checked as the API does) adds its team's."""
    if credentials is None:
        return None
    return get_current_key(request, state, session, credentials).team_id


@router.get("/", response_class=HTMLResponse)
async def leaderboard_page(
    request: Request,
    cache: BodyCacheDep,
    condition: Annotated[str | None, Query(max_length=64)] = None,
    country: Annotated[str | None, Query(max_length=8)] = None,
    version: Annotated[str | None, Query(max_length=64)] = None,
    suite: Annotated[str | None, Query(max_length=40)] = None,
    sort: Annotated[str, Query(max_length=32)] = "score",
    order: Literal["asc", "desc"] = "desc",
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> Response:
    """Rendered once per change of the board and kept, like the JSON board; async for the same reason."""
    key = ("board-page", condition, country, version, suite, sort, order, page)
    hit = cache.recent(key)
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

        def render(session: Session, board: Board) -> bytes:
            view = board_view(
                board=board, library=library, versions=board_versions(session=session), page=page
            )
            return templates.get_template("leaderboard.html").render(request=request, view=view).encode()

        hit = await run_in_threadpool(
            lambda: board_body(
                engine=state.deps.engine,
                library=library,
                bodies=cache,
                boards=request.app.state.board_cache,
                key=key,
                query=query,
                render=render,
                fresh_s=BOARD_CHECK_S,
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
    team_id: Annotated[str | None, Depends(viewer_team)],
) -> HTMLResponse:
    view = report_view(session=session, library=library, evaluation_id=evaluation_id, team_id=team_id)
    if view is None:
        return templates.TemplateResponse(request, "not_found.html", {"what": evaluation_id}, status_code=404)
    return templates.TemplateResponse(request, "report.html", {"view": view})
