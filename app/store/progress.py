"""What a poller sees of an evaluation: its status row without the report, and tallies over its items."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import defer
from sqlmodel import Session, select

from app.store import tallies
from app.store.models import Evaluation
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
    """The evaluation's status row and its tallies (app/store/tallies.py): a few rows, whatever the run's size."""
    stmt = select(Evaluation.status, Evaluation.total, Evaluation.target_id, Evaluation.stalled).where(
        Evaluation.id == evaluation_id
    )
    head = session.exec(stmt).first()
    if head is None:
        return None
    counts = tallies.counts(session=session, evaluation_id=evaluation_id)
    return Tally(
        status=head[0],
        total=head[1],
        done=counts.written,
        failed=counts.failed,
        graded=counts.graded,
        passed=counts.passed,
        retries=counts.retries,
        errors_by_class=counts.errors_by_class,
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
