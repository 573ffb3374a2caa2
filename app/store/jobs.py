"""The embedded default's job queue, kept in the database: enqueue, claim under a lease, renew, finish.

A claim is one guarded UPDATE (the row must still be free or its lease lapsed), so two claimers never both win
a job, on SQLite or PostgreSQL. A holder that dies stops renewing; once its lease lapses the next claim takes the
job, and the job skips the items already written (they are keyed), as a shard resumed from Redis does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from sqlalchemy import Connection, Engine, and_, delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import col

from app.queue.fair import head_rank, ranks
from app.store.models import QueuedJob, utcnow

JobState = Literal["queued", "running"]


@dataclass(frozen=True)
class Claimed:
    """A job a holder won: what to run."""

    id: str
    kind: str
    subject_id: str
    shard: int


def enqueue_jobs(*, engine: Engine, jobs: Sequence[tuple[str, str, str, int]]) -> int:
    """Queue (id, kind, subject_id, shard) jobs in one transaction, ranked one round apart from the head
    (app/queue/fair.py); a job already queued or held is left as it is. Returns how many were newly queued."""
    if not jobs:
        return 0
    insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
    now = utcnow()
    added = 0
    with engine.begin() as conn:
        head = _head(conn, now)
        for (job_id, kind, subject_id, shard), rank in zip(jobs, ranks(head, len(jobs)), strict=True):
            result = conn.execute(
                insert(QueuedJob)
                .values(
                    id=job_id,
                    kind=kind,
                    subject_id=subject_id,
                    shard=shard,
                    rank=rank,
                    queued_at=now,
                    available_at=now,
                )
                .on_conflict_do_nothing(index_elements=["id"])
                .returning(
                    QueuedJob.id
                )  # what was inserted (an INSERT's rowcount is not kept on every driver)
            )
            added += len(result.all())
    return added


def _head(conn: Connection, now: object) -> int:
    """The rank a free place takes next: the lowest claimable one, else the highest held one."""
    waiting = conn.execute(select(func.min(QueuedJob.rank)).where(_claimable(now))).scalar_one()
    taken = conn.execute(select(func.max(QueuedJob.rank))).scalar_one()
    return head_rank([] if waiting is None else [waiting], [] if taken is None else [taken])


def _claimable(now: object) -> object:
    return and_(
        col(QueuedJob.available_at) <= now,
        or_(col(QueuedJob.holder).is_(None), col(QueuedJob.lease_until) < now),
    )


def claim_job(*, engine: Engine, holder: str, lease_s: float, newcomer: bool = False) -> Claimed | None:
    """Take the lowest-ranked claimable job (the fair share, app/queue/fair.py; then the oldest) for `holder`
    for lease_s; None if there is none or another claimer won it. `newcomer`: only a job of an evaluation (or
    batch) none of whose jobs is held now (for a worker's spare place: app/runner/shard_places.py)."""
    now = utcnow()
    wanted = _claimable(now)
    if newcomer:
        held = select(QueuedJob.subject_id).where(
            col(QueuedJob.holder).is_not(None), col(QueuedJob.lease_until) >= now
        )
        wanted = and_(wanted, col(QueuedJob.subject_id).not_in(held))
    oldest = (
        select(QueuedJob.id)
        .where(wanted)
        .order_by(col(QueuedJob.rank), col(QueuedJob.queued_at), col(QueuedJob.shard))
        .limit(1)
        .scalar_subquery()
    )
    stmt = (
        update(QueuedJob)
        .where(col(QueuedJob.id) == oldest, _claimable(now))
        .values(holder=holder, lease_until=now + timedelta(seconds=lease_s))
        .returning(QueuedJob.id, QueuedJob.kind, QueuedJob.subject_id, QueuedJob.shard)
    )
    with engine.begin() as conn:
        row = conn.execute(stmt).first()
    return Claimed(*row) if row is not None else None


def renew_job(*, engine: Engine, job_id: str, holder: str, lease_s: float) -> bool:
    """Push the lease on; False if `holder` no longer holds the job (its lease lapsed and another took it)."""
    with engine.begin() as conn:
        result = conn.execute(
            update(QueuedJob)
            .where(col(QueuedJob.id) == job_id, col(QueuedJob.holder) == holder)
            .values(lease_until=utcnow() + timedelta(seconds=lease_s))
        )
    return bool(result.rowcount)


def finish_job(*, engine: Engine, job_id: str, holder: str) -> None:
    """The job ran to its end: remove it (only if `holder` still holds it; a taker's run finishes it instead)."""
    with engine.begin() as conn:
        conn.execute(delete(QueuedJob).where(col(QueuedJob.id) == job_id, col(QueuedJob.holder) == holder))


def release_job(*, engine: Engine, job_id: str, holder: str, delay_s: float = 0.0) -> None:
    """Hand the job back (stopping, or failed): claimable again after delay_s by any claimer."""
    with engine.begin() as conn:
        conn.execute(
            update(QueuedJob)
            .where(col(QueuedJob.id) == job_id, col(QueuedJob.holder) == holder)
            .values(holder=None, lease_until=None, available_at=utcnow() + timedelta(seconds=delay_s))
        )


def drop_waiting(*, engine: Engine, job_ids: Sequence[str]) -> int:
    """Delete these jobs where no holder has them; returns how many went."""
    if not job_ids:
        return 0
    with engine.begin() as conn:
        result = conn.execute(
            delete(QueuedJob).where(col(QueuedJob.id).in_(list(job_ids)), col(QueuedJob.holder).is_(None))
        )
    return int(result.rowcount)


def job_states(*, engine: Engine, job_ids: Sequence[str]) -> dict[str, JobState]:
    """ "running" for a job under a live lease, "queued" for one waiting (or whose holder's lease lapsed, which
    the next claim takes); absent jobs are neither."""
    if not job_ids:
        return {}
    now = utcnow()
    states: dict[str, JobState] = {}
    with engine.connect() as conn:
        for start in range(0, len(job_ids), 900):  # stay under SQLite's bound-parameter limit
            chunk = list(job_ids[start : start + 900])
            rows = conn.execute(
                select(QueuedJob.id, QueuedJob.holder, QueuedJob.lease_until).where(
                    col(QueuedJob.id).in_(chunk)
                )
            )
            for job_id, holder, until in rows:
                live = holder is not None and until is not None and until >= now
                states[job_id] = "running" if live else "queued"
    return states


def job_count(*, engine: Engine) -> int:
    """Jobs queued or held (for /metrics)."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(QueuedJob)).scalar_one())
