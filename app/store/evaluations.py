"""Evaluations: creation, status transitions and progress, all as guarded single statements."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Text, case, cast, delete, func, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import aliased, defer
from sqlmodel import Session, col, select

from app.store.bulk import insert_many
from app.store.models import WHOLE, BoardFigures, BoardStamp, Evaluation, EvaluationItem, utcnow
from app.store.outbox import STALLED_EVENT, queue_settled_webhooks, queue_webhooks
from app.store.paging import newest_first
from app.store.statuses import ACTIVE, TERMINAL


def get_evaluation(*, session: Session, team_id: str | None, evaluation_id: str) -> Evaluation | None:
    """Returns the evaluation if it exists and (when team_id is given) belongs to that team."""
    ev = session.get(Evaluation, evaluation_id)
    if ev is None or (team_id is not None and ev.team_id != team_id):
        return None
    return ev


def find_by_idempotency_key(*, session: Session, team_id: str, key: str) -> Evaluation | None:
    stmt = select(Evaluation).where(Evaluation.team_id == team_id, Evaluation.idempotency_key == key)
    return session.exec(stmt).first()


def list_evaluations(
    *, session: Session, team_id: str, limit: int, after: tuple[datetime, str] | None
) -> list[Evaluation]:
    """Newest first, after the (created_at, id) of the last row seen (paging.NEWEST_FIRST reads it)."""
    stmt = select(Evaluation).where(Evaluation.team_id == team_id)
    return list(session.exec(newest_first(stmt, Evaluation, after, limit)))


def mark_running(*, session: Session, evaluation_id: str) -> bool:
    """queued → running (started_at set once); returns False if the evaluation is already finished."""
    ev = session.get(Evaluation, evaluation_id)
    if ev is None or ev.status in TERMINAL:
        return False
    if ev.status == "queued":
        session.execute(
            update(Evaluation)
            .where(col(Evaluation.id) == evaluation_id, col(Evaluation.status) == "queued")
            .values(status="running", started_at=utcnow())
        )
    return True


def request_cancel(*, session: Session, evaluation: Evaluation) -> bool:
    """Moves an active evaluation to cancelled; runners see it and stop their in-flight calls."""
    result = session.execute(
        update(Evaluation)
        .where(col(Evaluation.id) == evaluation.id, col(Evaluation.status).in_(ACTIVE))
        .values(status="cancelled", finished_at=utcnow())
    )
    queue_settled_webhooks(session=session, evaluation_id=evaluation.id)
    return bool(result.rowcount)  # type: ignore[attr-defined]


def is_cancelled(*, session: Session, evaluation_id: str) -> bool:
    """Cancelled, failed (a breaker in another process ended it) or deleted (its row gone): either way its shards
    stop calling."""
    status = session.exec(select(Evaluation.status).where(Evaluation.id == evaluation_id)).first()
    return status is None or status in ("cancelled", "failed")


def progress(*, session: Session, evaluation_id: str) -> tuple[int, int]:
    """Returns (items written, items that ended with an error), counted from the items themselves: what settles a
    run rests on what is stored (a poller reads the tallies kept beside them, app/store/tallies.py)."""
    stmt = select(
        func.count(),
        func.coalesce(func.sum(case((col(EvaluationItem.error_class).is_not(None), 1), else_=0)), 0),
    ).where(EvaluationItem.evaluation_id == evaluation_id)
    done, failed = session.exec(stmt).one()
    return int(done), int(failed)


@dataclass(frozen=True)
class Settlement:
    """What settling an evaluation would set, decided from its items as they stand."""

    status: str
    total: int
    error: str | None
    written: int  # items written when it was decided: a report built on fewer is out of date


def settlement(*, session: Session, evaluation_id: str, budget_lost: bool = False) -> Settlement | None:
    """Reads whether the evaluation is ready to settle, and how; writes nothing, so a caller can build the
    report from the items first and hold no write lock while it does.

    Ready when every item is written, or the budget stopped the run and every item it started is written.
    `budget_lost`: the budget stopped the run and no shard of it is queued or held, so items it counts as in
    flight died with their worker and will never be written (the reconciler knows this; a shard does not).
    """
    ev = session.get(Evaluation, evaluation_id)
    if ev is None or ev.status not in ACTIVE:
        return None
    done, failed = progress(session=session, evaluation_id=evaluation_id)
    budget_over = ev.budget_stopped_at is not None and (ev.budget_in_flight <= 0 or budget_lost)
    if done < ev.total and not budget_over:
        return None
    total = done if budget_over else ev.total  # a run its budget stopped covers what it ran
    status = "failed" if total and failed == total else "succeeded"
    error = "every call to the target failed; see the items' errors" if status == "failed" else None
    if status == "succeeded" and (budget_over or _planned_stop(ev)):
        status = "stopped_by_budget"
    return Settlement(status=status, total=total, error=error, written=done)


def settle(*, session: Session, evaluation_id: str, outcome: Settlement) -> bool:
    """Sets the settled status once (a guarded update: of racing settlers one wins) and queues its webhooks."""
    result = session.execute(
        update(Evaluation)
        .where(col(Evaluation.id) == evaluation_id, col(Evaluation.status).in_(ACTIVE))
        .values(status=outcome.status, finished_at=utcnow(), error=outcome.error, total=outcome.total)
    )
    if not result.rowcount:  # type: ignore[attr-defined]
        return False
    queue_settled_webhooks(session=session, evaluation_id=evaluation_id)
    return True


def finish_if_complete(*, session: Session, evaluation_id: str, budget_lost: bool = False) -> str | None:
    """Settles the evaluation if it is ready (see `settlement`); returns the new status or None."""
    outcome = settlement(session=session, evaluation_id=evaluation_id, budget_lost=budget_lost)
    if outcome is None or not settle(session=session, evaluation_id=evaluation_id, outcome=outcome):
        return None
    return outcome.status


def _planned_stop(ev: Evaluation) -> bool:
    """An evaluation created before budgets were measured: its total was the plan's share of the matrix."""
    plan = ev.plan or {}
    return ev.total == plan.get("items_within_budget", ev.total) < plan.get("items", 0)


def fail_evaluation(*, session: Session, evaluation_id: str, error: str) -> None:
    session.execute(
        update(Evaluation)
        .where(col(Evaluation.id) == evaluation_id, col(Evaluation.status).in_(ACTIVE))
        .values(status="failed", finished_at=utcnow(), error=error)
    )
    queue_settled_webhooks(session=session, evaluation_id=evaluation_id)


def active_evaluations(*, session: Session) -> list[Evaluation]:
    """Queued and running evaluations, without their (large, still empty) report column."""
    stmt = select(Evaluation).options(defer(Evaluation.summary)).where(col(Evaluation.status).in_(ACTIVE))  # type: ignore[arg-type]
    return list(session.exec(stmt))


def any_finished_since(*, session: Session, since: datetime) -> bool:
    """Whether some evaluation settled after `since` (the service was making progress then)."""
    stmt = select(Evaluation.id).where(col(Evaluation.finished_at) >= since).limit(1)
    return session.exec(stmt).first() is not None


def note_progress(*, session: Session, evaluation_id: str, done: int) -> None:
    """Items were written since the last look: remember the count, stop the idle clock, clear a stall."""
    session.execute(
        update(Evaluation)
        .where(col(Evaluation.id) == evaluation_id, col(Evaluation.status).in_(ACTIVE))
        .values(progress_done=done, idle_since=None, stalled=None, stalled_at=None)
    )


def set_idle_since(*, session: Session, evaluation_id: str, since: datetime | None) -> None:
    """Start the idle clock (a time), or stop it (None) while the evaluation fairly waits behind other work."""
    session.execute(
        update(Evaluation)
        .where(col(Evaluation.id) == evaluation_id, col(Evaluation.status).in_(ACTIVE))
        .values(idle_since=since)
    )


def mark_stalled(*, session: Session, evaluation_id: str, reason: str) -> bool:
    """Record why an active evaluation has stalled and queue its `evaluation.stalled` webhooks; once per stall."""
    result = session.execute(
        update(Evaluation)
        .where(
            col(Evaluation.id) == evaluation_id,
            col(Evaluation.status).in_(ACTIVE),
            col(Evaluation.stalled).is_(None),
        )
        .values(stalled=reason, stalled_at=utcnow())
    )
    if not result.rowcount:  # type: ignore[attr-defined]
        return False
    team_id = session.exec(select(Evaluation.team_id).where(Evaluation.id == evaluation_id)).one()
    queue_webhooks(session=session, evaluation_id=evaluation_id, team_id=team_id, event=STALLED_EVENT)
    return True


def leaderboard_stamp(*, session: Session, benchmark_version: str) -> tuple[int, int]:
    """The board stamp of a version: how many public finished evaluations (counted on their index, no row read)
    and the version's count of board-figure writes, bumped in the transaction of every write. Either moves when
    the board does; every replica reads the same."""
    count = session.exec(
        select(func.count()).where(
            Evaluation.visibility == "public",
            Evaluation.status == "succeeded",
            Evaluation.benchmark_version == benchmark_version,
        )
    ).one()
    changes = session.exec(
        select(BoardStamp.changes).where(BoardStamp.benchmark_version == benchmark_version)
    ).first()
    return int(count), int(changes or 0)


def bump_board_stamp(*, session: Session, benchmark_version: str) -> None:
    """Mark a version's board changed, in the caller's transaction."""
    dialect = session.get_bind().dialect.name
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    stmt = insert(BoardStamp).values(benchmark_version=benchmark_version, changes=1)
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=["benchmark_version"], set_={"changes": BoardStamp.changes + 1}
        )
    )


def save_board_figures(
    *,
    session: Session,
    evaluation_id: str,
    benchmark_version: str,
    finished_at: datetime,
    figures: dict[str, dict[str, Any]],
) -> None:
    """Replace an evaluation's board figures (slice name → figures) and bump the board stamp, in the caller's
    transaction, so no board sees the figures without knowing it changed."""
    session.execute(delete(BoardFigures).where(col(BoardFigures.evaluation_id) == evaluation_id))
    rows = [
        {"evaluation_id": evaluation_id, "slice": name, "figures": values, "finished_at": finished_at}
        for name, values in figures.items()
    ]
    insert_many(session.connection(), BoardFigures.__table__, rows)  # type: ignore[attr-defined]
    bump_board_stamp(session=session, benchmark_version=benchmark_version)


def board_figures_of(*, session: Session, evaluation_id: str) -> dict[str, dict[str, Any]]:
    """An evaluation's stored board figures, slice name → figures."""
    stmt = select(BoardFigures.slice, BoardFigures.figures).where(BoardFigures.evaluation_id == evaluation_id)
    return dict(session.exec(stmt).all())  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class BoardRecord:
    """One public finished evaluation as a board reads it: its figures for one slice as their stored JSON text
    (None: no items in it; the text, so a board kept in memory parses only figures it has not seen) and its
    finish; finished_at is None when it has no board figures (a report stored before they were kept)."""

    evaluation_id: str
    target_name: str
    model: str
    suite: str
    figures: str | None
    finished_at: datetime | None

    @property
    def has_figures(self) -> bool:
        return self.finished_at is not None


def board_records(*, session: Session, benchmark_version: str, slice: str) -> list[BoardRecord]:
    """Public succeeded evaluations of one version, each with its figures for `slice`: one small row each, and
    only evaluation columns stored before the report (read without touching it)."""
    part = aliased(BoardFigures)
    whole = aliased(BoardFigures)
    stmt = (
        select(
            Evaluation.id,
            Evaluation.target_name,
            Evaluation.model,
            Evaluation.suite,
            cast(part.figures, Text),
            whole.finished_at,
        )
        .outerjoin(part, (part.evaluation_id == Evaluation.id) & (part.slice == slice))
        .outerjoin(whole, (whole.evaluation_id == Evaluation.id) & (whole.slice == WHOLE))
        .where(
            Evaluation.visibility == "public",
            Evaluation.status == "succeeded",
            Evaluation.benchmark_version == benchmark_version,
        )
    )
    return [BoardRecord(*row) for row in session.exec(stmt)]  # type: ignore[call-overload]


def stored_report(*, session: Session, evaluation_id: str) -> tuple[dict[str, Any] | None, datetime | None]:
    """The report stored at an evaluation's finish (None if the report failed), and the finish."""
    row = session.exec(
        select(Evaluation.summary, Evaluation.finished_at).where(Evaluation.id == evaluation_id)
    ).first()
    return (row[0], row[1]) if row else (None, None)


def board_versions(*, session: Session) -> list[str]:
    """Benchmark versions with at least one public finished evaluation, for the board's version picker."""
    stmt = (
        select(Evaluation.benchmark_version)
        .where(Evaluation.visibility == "public", Evaluation.status == "succeeded")
        .distinct()
    )
    return sorted(session.exec(stmt))


def count_active(*, session: Session, team_id: str) -> int:
    """How many of the team's evaluations are queued or running."""
    stmt = (
        select(func.count())
        .select_from(Evaluation)
        .where(Evaluation.team_id == team_id, col(Evaluation.status).in_(ACTIVE))
    )
    return int(session.exec(stmt).one())
