"""HTML edges: read the query, make one service call, render a template."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.templating import Jinja2Templates

from app.deps import AppState, LibraryDep, SessionDep, get_current_key, get_state
from app.pages import format as fmt
from app.problems import Problem
from app.services.pages import SORTS, BoardFilters, leaderboard_view, report_view

router = APIRouter(tags=["pages"], include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
templates.env.filters.update(pct=fmt.pct, interval=fmt.interval, score=fmt.score)
templates.env.globals.update(bar_width=fmt.bar_width)
_bearer = HTTPBearer(auto_error=False)


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
def leaderboard_page(
    request: Request,
    session: SessionDep,
    library: LibraryDep,
    condition: Annotated[str | None, Query(max_length=64)] = None,
    country: Annotated[str | None, Query(max_length=8)] = None,
    version: Annotated[str | None, Query(max_length=64)] = None,
    sort: Annotated[str, Query(max_length=32)] = "score",
    order: Literal["asc", "desc"] = "desc",
) -> HTMLResponse:
    if sort not in SORTS and not (sort.startswith("pillar:") and sort[7:] in library.pillars):
        raise Problem(422, "Invalid request", f"sort: one of {', '.join(SORTS)} or pillar:<id>", field="sort")
    filters = BoardFilters(
        condition=condition or None, country=country or None, version=version or None, sort=sort, order=order
    )
    view = leaderboard_view(session=session, library=library, filters=filters)
    return templates.TemplateResponse(request, "leaderboard.html", {"view": view})


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
