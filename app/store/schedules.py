"""Schedules and the regressions found against a baseline: the SQL of both, as short guarded statements."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.store.models import Evaluation, Regression, Schedule
from app.store.paging import newest_first


def get_schedule(*, session: Session, team_id: str | None, schedule_id: str) -> Schedule | None:
    """The schedule if it exists, is not deleted and (when team_id is given) belongs to that team."""
    schedule = session.get(Schedule, schedule_id)
    if schedule is None or schedule.deleted_at is not None:
        return None
    if team_id is not None and schedule.team_id != team_id:
        return None
    return schedule


def list_schedules(*, session: Session, team_id: str) -> list[Schedule]:
    stmt = (
        select(Schedule)
        .where(Schedule.team_id == team_id, col(Schedule.deleted_at).is_(None))
        .order_by(col(Schedule.created_at), col(Schedule.id))
    )
    return list(session.exec(stmt))


def due_schedules(*, session: Session, now: datetime) -> list[Schedule]:
    stmt = (
        select(Schedule)
        .where(
            col(Schedule.next_run_at) <= now,
            col(Schedule.deleted_at).is_(None),
            col(Schedule.paused).is_(False),
        )
        .order_by(col(Schedule.next_run_at))
    )
    return list(session.exec(stmt))


def claim_tick(*, session: Session, schedule_id: str, tick: datetime, next_run_at: datetime) -> bool:
    """Move next_run_at from `tick` to `next_run_at` if no one else has: True for the one claimant that did.

    Concurrent schedulers race on the same guarded UPDATE; the database lets exactly one match the old value.
    Uncommitted, the claim dies with its transaction, so a scheduler killed mid-claim blocks nobody.
    """
    moved = session.execute(
        update(Schedule)
        .where(
            col(Schedule.id) == schedule_id,
            col(Schedule.next_run_at) == tick,
            col(Schedule.deleted_at).is_(None),
            col(Schedule.paused).is_(False),
        )
        .values(next_run_at=next_run_at, last_run_at=tick)
    ).rowcount  # type: ignore[attr-defined]
    return bool(moved)


def note_run(*, session: Session, schedule_id: str, evaluation_id: str | None, error: str | None) -> None:
    values: dict[str, Any] = {"last_error": error}
    if evaluation_id is not None:
        values["last_evaluation_id"] = evaluation_id
    session.execute(update(Schedule).where(col(Schedule.id) == schedule_id).values(**values))


def previous_succeeded(*, session: Session, evaluation: Evaluation) -> Evaluation | None:
    """The team's last succeeded evaluation of the same target, suite and benchmark before this one."""
    stmt = (
        select(Evaluation)
        .where(
            Evaluation.team_id == evaluation.team_id,
            Evaluation.target_id == evaluation.target_id,
            Evaluation.suite == evaluation.suite,
            Evaluation.benchmark_version == evaluation.benchmark_version,
            Evaluation.status == "succeeded",
            col(Evaluation.id) != evaluation.id,
            col(Evaluation.created_at) <= evaluation.created_at,
        )
        .order_by(col(Evaluation.created_at).desc(), col(Evaluation.id).desc())
        .limit(1)
    )
    return session.exec(stmt).first()


def set_baseline(*, session: Session, evaluation_id: str, baseline_id: str) -> None:
    session.execute(
        update(Evaluation)
        .where(col(Evaluation.id) == evaluation_id)
        .values(baseline_evaluation_id=baseline_id)
    )


def add_regressions(*, session: Session, rows: Sequence[Regression]) -> None:
    """Stored once per evaluation and metric: a second settle of the same evaluation adds nothing."""
    if (
        not rows
        or session.exec(
            select(Regression.id).where(Regression.evaluation_id == rows[0].evaluation_id).limit(1)
        ).first()
    ):
        return
    session.add_all(rows)


def regressions_of(*, session: Session, evaluation_id: str) -> list[Regression]:
    stmt = (
        select(Regression).where(Regression.evaluation_id == evaluation_id).order_by(col(Regression.metric))
    )
    return list(session.exec(stmt))


def list_regressions(
    *, session: Session, team_id: str, limit: int, after: tuple[datetime, str] | None
) -> list[Regression]:
    """Newest first, after the (created_at, id) of the last row seen (paging.NEWEST_FIRST reads it)."""
    stmt = select(Regression).where(Regression.team_id == team_id)
    return list(session.exec(newest_first(stmt, Regression, after, limit)))
