"""How an evaluation's page answers, whichever page it is: to a viewer by key (a team's own read is noted in the
audit log, a page for a key is never cached) or to whoever holds a share link (no cache, no Referer sent on)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from sqlmodel import Session

from app.errors import Gone, NotFound
from app.pages.access import NO_STORE, Viewer
from app.pages.templating import templates
from app.services import audit, shares
from app.store.models import ShareLink

Build = Callable[[str | None, str], Any]  # (team id, base path) → a view, or None for a 404
SharedBuild = Callable[[ShareLink, str], Any]  # (share, base path) → a view, or None for a 404

GONE = "this share link's evaluation, or this item of it, was not found"


def keyed_page(
    request: Request, session: Session, who: Viewer | None, evaluation_id: str, template: str, build: Build
) -> HTMLResponse:
    """The page of an evaluation the viewer may see (public, or their team's), else a 404 page."""
    key = who.key if who else None
    view = build(key.team_id if key else None, f"/evaluations/{evaluation_id}")
    if view is None:
        response = templates.TemplateResponse(
            request, "not_found.html", {"what": evaluation_id, "viewer": who}, status_code=404
        )
    else:
        if key is not None:  # the team's own transcripts: a read
            audit.note(
                session=session,
                key=key,
                action=audit.READ_PAGE,
                object_type="evaluation",
                object_id=evaluation_id,
            )
        response = templates.TemplateResponse(request, template, {"view": view, "viewer": who})
    if who is not None:
        response.headers["Cache-Control"] = NO_STORE
    return response


def shared_page(
    request: Request,
    session: Session,
    token: str,
    template: str,
    build: SharedBuild,
    *,
    missing: str = GONE,
) -> HTMLResponse:
    """The page a share link opens, read-only; a link revoked, expired or whose evaluation went answers a page
    saying so (`missing`: why, where the view is gone)."""
    try:
        share = shares.open_share(session=session, token=token)
        view = build(share, f"/shared/{token}")
        if view is None:
            raise NotFound("token", missing)
    except (NotFound, Gone) as exc:
        status = 410 if isinstance(exc, Gone) else 404
        response = templates.TemplateResponse(
            request, "share_gone.html", {"detail": exc.detail}, status_code=status
        )
    else:
        audit.note_share_read(session=session, share=share)
        response = templates.TemplateResponse(request, template, {"view": view, "shared": True})
    response.headers["Cache-Control"] = NO_STORE
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
