"""The access log: who read people's words (results, exports, batch lines, report pages) or deleted them."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from sqlmodel import Session

from app.errors import NotFound
from app.services.keys import is_platform_admin
from app.store import audit as store
from app.store import paging
from app.store.models import ApiKey, AuditEvent, ShareLink

# What a key did; object_type says to what ("evaluation" or "grade_batch").
READ_RESULTS = "read_results"
READ_ERRORS = "read_errors"
EXPORT = "export"
READ_PAGE = "read_page"
READ_PUBLIC_RESULTS = "read_public_results"
READ_SHARE = "read_share"  # the report page through a share link: no key, the share's team
DELETE = "delete"
DELETE_KEEP_REPORT = "delete_keep_report"


def note(*, session: Session, key: ApiKey | None, action: str, object_type: str, object_id: str) -> None:
    """Record the access and commit it, before what it records is served: a read that cannot be logged fails."""
    store.record(
        session=session,
        key_id=key.id if key else None,
        team_id=key.team_id if key else None,
        action=action,
        object_type=object_type,
        object_id=object_id,
    )
    session.commit()


def note_share_read(*, session: Session, share: ShareLink) -> None:
    """A read through a share link, in the owning team's log (whoever holds a link reads as the team's guest)."""
    store.record(
        session=session,
        key_id=None,
        team_id=share.team_id,
        action=READ_SHARE,
        object_type="evaluation",
        object_id=share.evaluation_id,
    )
    session.commit()


class AuditEventPublic(BaseModel):
    id: int
    key_id: str | None
    team_id: str | None
    action: str
    object_type: str
    object_id: str
    created_at: datetime


class AuditPage(BaseModel):
    items: list[AuditEventPublic]
    next_cursor: str | None


BY_ID: paging.Cursor[int, AuditEvent] = paging.by_number(lambda event: event.id)


def audit_page(
    *,
    session: Session,
    actor: ApiKey,
    team_id: str | None,
    object_id: str | None,
    cursor: str | None,
    limit: int,
) -> AuditPage:
    """Newest first. A platform admin sees every team's events (or one team's); a team's admin its own."""
    if not is_platform_admin(session=session, key=actor):
        if team_id not in (None, actor.team_id):
            raise NotFound("team_id", f"no team {team_id!r}")
        team_id = actor.team_id
    rows, next_cursor = paging.page(
        BY_ID,
        lambda before, n: store.newest_first(
            session=session, team_id=team_id, object_id=object_id, before_id=before, limit=n
        ),
        cursor,
        limit,
    )
    items = [AuditEventPublic.model_validate(row, from_attributes=True) for row in rows]
    return AuditPage(items=items, next_cursor=next_cursor)
