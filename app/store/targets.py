"""Targets: a team's model endpoints. Soft-deleted so past evaluations keep their history."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app.store.models import Target, utcnow


def create_target(*, session: Session, team_id: str, fields: dict[str, Any]) -> Target:
    target = Target(team_id=team_id, **fields)
    session.add(target)
    session.flush()
    return target


def get_target(*, session: Session, team_id: str, target_id: str) -> Target | None:
    """Returns a live target of this team, or None (another team's target is simply not found)."""
    target = session.get(Target, target_id)
    if target is None or target.team_id != team_id or target.deleted_at is not None:
        return None
    return target


def list_targets(*, session: Session, team_id: str) -> list[Target]:
    stmt = select(Target).where(Target.team_id == team_id, col(Target.deleted_at).is_(None))
    return list(session.exec(stmt.order_by(col(Target.created_at))))


def delete_target(*, session: Session, target: Target) -> None:
    target.deleted_at = utcnow()
    session.add(target)
