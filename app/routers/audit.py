"""/v1/audit: who read people's words (transcripts, exports, batch lines, report pages) and who deleted them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.deps import AdminKey, SessionDep
from app.http.openapi import problems
from app.services.audit import AuditPage, audit_page

router = APIRouter(prefix="/v1/audit", tags=["audit"])


@router.get("", response_model=AuditPage, responses=problems(404))
def list_audit(
    admin: AdminKey,
    session: SessionDep,
    team_id: Annotated[str | None, Query(max_length=40, description="Platform admins: one team's.")] = None,
    object_: Annotated[
        str | None, Query(alias="object", max_length=80, description="One evaluation's or batch's id.")
    ] = None,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> AuditPage:
    """Newest first; a platform admin sees every team's, a team's admin its own."""
    return audit_page(
        session=session, actor=admin, team_id=team_id, object_id=object_, cursor=cursor, limit=limit
    )
