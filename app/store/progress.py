"""What a poller sees of an evaluation: its status row without the report, and tallies over its items."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import case, func
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from app.benchmark.verdicts import GRADED
from app.store.models import Evaluation, EvaluationItem
from app.store.statuses import TERMINAL


@dataclass(frozen=True)
class Tally:
    """An evaluation's status and its items counted by outcome."""

    status: str
    total: int
    done: int
    failed: int
    graded: int
    passed: int
    retries: int
    errors_by_class: dict[str, int] = field(default_factory=dict)
    target_id: str = ""
    stalled: str | None = (
        None  # why a running evaluation has written nothing for a while (None while it moves)
    )

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


def tally(*, session: Session, evaluation_id: str) -> Tally | None:
    """Two aggregate queries over the evaluation's items (its index), however many items it has."""
    stmt = select(Evaluation.status, Evaluation.total, Evaluation.target_id, Evaluation.stalled).where(
        Evaluation.id == evaluation_id
    )
    head = session.exec(stmt).first()
    if head is None:
        return None
    item = EvaluationItem
    done, failed, graded, passed, retries = session.exec(
        select(
            func.count(),
            func.coalesce(func.sum(case((col(item.error_class).is_not(None), 1), else_=0)), 0),
            func.coalesce(func.sum(case((col(item.verdict).in_(GRADED), 1), else_=0)), 0),
            func.coalesce(func.sum(case((col(item.verdict) == "PASS", 1), else_=0)), 0),
            func.coalesce(func.sum(case((col(item.attempts) > 1, col(item.attempts) - 1), else_=0)), 0),
        ).where(item.evaluation_id == evaluation_id)
    ).one()
    errors = session.exec(
        select(item.error_class, func.count())
        .where(item.evaluation_id == evaluation_id, col(item.error_class).is_not(None))
        .group_by(col(item.error_class))
    ).all()
    return Tally(
        status=head[0],
        total=head[1],
        done=int(done),
        failed=int(failed),
        graded=int(graded),
        passed=int(passed),
        retries=int(retries),
        errors_by_class={str(k): int(n) for k, n in errors},
        target_id=head[2],
        stalled=head[3],
    )


def status_row(*, session: Session, team_id: str, evaluation_id: str) -> Evaluation | None:
    """The team's evaluation without its stored report (the largest column, which a status poll never shows)."""
    stmt = (
        select(Evaluation)
        .options(defer(Evaluation.summary))  # type: ignore[arg-type]
        .where(Evaluation.id == evaluation_id, Evaluation.team_id == team_id)
    )
    return session.exec(stmt).first()
