"""HTML edges: read the query, make one service call, render a template."""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from sqlmodel import Session

from app.benchmark.loader import Library
from app.deps import LibraryDep, SessionDep, get_state
from app.http.caching import PUBLIC_CACHE, conditional_body
from app.observability.logging import hide_share_tokens
from app.pages import access, explorer_routes
from app.pages.access import NO_STORE, Viewer, viewer
from app.pages.responses import keyed_page, shared_page
from app.pages.templating import signed_out_header, templates
from app.pages.views import board_versions, board_view, report_view
from app.scoring.leaderboard import Board
from app.services.board_cache import BoardCache, Render, common_queries
from app.services.board_query import board_query
from app.store.models import ShareLink

HTML = "text/html; charset=utf-8"


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
    """The first page of the common boards is rendered ahead (app/background.py starts the refresher);
    share links' tokens are kept out of the access log."""
    hide_share_tokens()
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
router.include_router(access.router)
router.include_router(explorer_routes.router)


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
    signed_in = await access.cookie_viewer(request)
    if signed_in is not None:  # the kept page, with this viewer's name and sign-out button: for them alone
        body = body.replace(signed_out_header().encode(), access.viewer_header(signed_in).encode(), 1)
        return conditional_body(request, body, media_type=HTML, cache_control=NO_STORE)
    return conditional_body(request, body, etag=etag, media_type=HTML, cache_control=PUBLIC_CACHE)


@router.get("/evaluations/{evaluation_id}", response_class=HTMLResponse)
def report_page(
    request: Request,
    evaluation_id: str,
    session: SessionDep,
    library: LibraryDep,
    who: Annotated[Viewer | None, Depends(viewer)],
) -> HTMLResponse:
    """Public reports for anyone; a private one for its team's key, sent as Bearer or signed in."""

    def build(team_id: str | None, _base: str) -> Any:
        return report_view(session=session, library=library, evaluation_id=evaluation_id, team_id=team_id)

    return keyed_page(request, session, who, evaluation_id, "report.html", build)


@router.get("/shared/{token}", response_class=HTMLResponse, name="shared_report_page")
def shared_report_page(
    request: Request, token: str, session: SessionDep, library: LibraryDep
) -> HTMLResponse:
    """One evaluation's report as its team sees it, read-only, for whoever holds the link. The token is in the
    path: the page sends no Referer on (no-referrer) and no cache keeps it (no-store)."""

    def build(share: ShareLink, base: str) -> Any:
        return report_view(
            session=session,
            library=library,
            evaluation_id=share.evaluation_id,
            team_id=share.team_id,
            base=base,
        )

    # a view gone means the evaluation was deleted meanwhile: its shares went with it
    return shared_page(
        request, session, token, "report.html", build, missing="this share link's evaluation was deleted"
    )
