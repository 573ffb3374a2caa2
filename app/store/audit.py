"""The access log: rows are only ever added (the database refuses updates and deletes, see migration 0017)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from app.store.models import AuditEvent


def record(
    *,
    session: Session,
    key_id: str | None,
    team_id: str | None,
    action: str,
    object_type: str,
    object_id: str,
) -> AuditEvent:
    """Add one event in the caller's transaction (committed before what it records is served)."""
    event = AuditEvent(
        key_id=key_id, team_id=team_id, action=action, object_type=object_type, object_id=object_id
    )
    session.add(event)
    return event


def newest_first(
    *,
    session: Session,
    team_id: str | None,
    object_id: str | None,
    before_id: int | None,
    limit: int,
) -> list[AuditEvent]:
    """Events newest first, before the id of the last one seen; of one team and one object when given."""
    stmt = select(AuditEvent)
    if team_id is not None:
        stmt = stmt.where(AuditEvent.team_id == team_id)
    if object_id is not None:
        stmt = stmt.where(AuditEvent.object_id == object_id)
    if before_id is not None:
        stmt = stmt.where(col(AuditEvent.id) < before_id)
    return list(session.exec(stmt.order_by(col(AuditEvent.id).desc()).limit(limit)))
