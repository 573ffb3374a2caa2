"""HTML edges of the failures explorer: an evaluation's items filtered and paged, and one item's transcript.

Seen exactly as the report page is: a team's key (Bearer or signed in) or a public evaluation, or a share link,
under whose own URL space (/shared/{token}/…) the explorer is read-only and audited in the owning team's log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from sqlmodel import Session

from app.benchmark.loader import Library
from app.deps import LibraryDep, SessionDep
from app.pages.access import Viewer, viewer
from app.pages.explorer import PAGE, explorer_view, item_view
from app.pages.responses import keyed_page, shared_page
from app.routers.result_query import ResultFiltersDep
from app.store.models import ShareLink

router = APIRouter(tags=["pages"], include_in_schema=False)

Cursor = Annotated[str | None, Query(max_length=200)]
Limit = Annotated[int, Query(ge=1, le=500, description="Items per page.")]


@router.get("/evaluations/{evaluation_id}/results", response_class=HTMLResponse)
def results_page(
    request: Request,
    evaluation_id: str,
    session: SessionDep,
    library: LibraryDep,
    filters: ResultFiltersDep,
    who: Annotated[Viewer | None, Depends(viewer)],
    cursor: Cursor = None,
    limit: Limit = PAGE,
) -> HTMLResponse:
    """Every item of an evaluation, filtered as the JSON results are, a page at a time."""

    def build(team_id: str | None, base: str) -> Any:
        return explorer_view(
            session=session,
            library=library,
            evaluation_id=evaluation_id,
            team_id=team_id,
            filters=filters,
            cursor=cursor,
            limit=limit,
            base=base,
        )

    return keyed_page(request, session, who, evaluation_id, "results.html", build)


@router.get("/evaluations/{evaluation_id}/items/{key}", response_class=HTMLResponse)
def item_page(
    request: Request,
    evaluation_id: str,
    key: str,
    session: SessionDep,
    library: LibraryDep,
    who: Annotated[Viewer | None, Depends(viewer)],
) -> HTMLResponse:
    """One item's transcript with its grades and the grader's reasons."""

    def build(team_id: str | None, base: str) -> Any:
        return _item(session, library, evaluation_id, team_id, key, base)

    return keyed_page(request, session, who, evaluation_id, "item.html", build)


@router.get("/shared/{token}/results", response_class=HTMLResponse)
def shared_results_page(
    request: Request,
    token: str,
    session: SessionDep,
    library: LibraryDep,
    filters: ResultFiltersDep,
    cursor: Cursor = None,
    limit: Limit = PAGE,
) -> HTMLResponse:
    """The explorer of a shared evaluation, as its team sees it, read-only."""

    def build(share: ShareLink, base: str) -> Any:
        return explorer_view(
            session=session,
            library=library,
            evaluation_id=share.evaluation_id,
            team_id=share.team_id,
            filters=filters,
            cursor=cursor,
            limit=limit,
            base=base,
        )

    return shared_page(request, session, token, "results.html", build)


@router.get("/shared/{token}/items/{key}", response_class=HTMLResponse)
def shared_item_page(
    request: Request, token: str, key: str, session: SessionDep, library: LibraryDep
) -> HTMLResponse:
    def build(share: ShareLink, base: str) -> Any:
        return _item(session, library, share.evaluation_id, share.team_id, key, base)

    return shared_page(request, session, token, "item.html", build)


def _item(
    session: Session, library: Library, evaluation_id: str, team_id: str | None, key: str, base: str
) -> Any:
    return item_view(
        session=session, library=library, evaluation_id=evaluation_id, team_id=team_id, key=key, base=base
    )
