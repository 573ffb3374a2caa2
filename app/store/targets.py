"""Targets: a team's model endpoints. Soft-deleted so past evaluations keep their history.

Every change is a new immutable version row; the target row holds the current version's columns."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app.store.models import TARGET_CONFIG_FIELDS, Target, TargetVersion, utcnow


def _snapshot(target: Target) -> dict[str, Any]:
    return {name: getattr(target, name) for name in TARGET_CONFIG_FIELDS}


def _add_version(session: Session, target: Target) -> None:
    session.add(
        TargetVersion(
            target_id=target.id, version=target.version, config=_snapshot(target), created_at=utcnow()
        )
    )


def create_target(*, session: Session, team_id: str, fields: dict[str, Any]) -> Target:
    target = Target(team_id=team_id, version=1, **fields)
    session.add(target)
    session.flush()
    _add_version(session, target)
    session.flush()
    return target


def update_target(*, session: Session, target: Target, fields: dict[str, Any]) -> Target:
    """Applies the new configuration and records it as the next version; the id stays the same."""
    for name, value in fields.items():
        setattr(target, name, value)
    target.version += 1
    session.add(target)
    _add_version(session, target)
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


def list_versions(*, session: Session, target_id: str) -> list[TargetVersion]:
    stmt = select(TargetVersion).where(TargetVersion.target_id == target_id)
    return list(session.exec(stmt.order_by(col(TargetVersion.version))))


def target_at_version(*, session: Session, target_id: str, version: int) -> Target | None:
    """The target as it was at `version` (a detached object, never saved): what an evaluation runs against."""
    current = session.get(Target, target_id)
    if current is None:
        return None
    row = session.exec(
        select(TargetVersion).where(TargetVersion.target_id == target_id, TargetVersion.version == version)
    ).first()
    if row is None:  # a target written before versions were kept: its columns are its only version
        return current
    return Target(
        id=current.id, team_id=current.team_id, created_at=current.created_at, version=version, **row.config
    )


def delete_target(*, session: Session, target: Target) -> None:
    target.deleted_at = utcnow()
    session.add(target)
