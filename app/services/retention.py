"""The retention sweep: one process at a time (a database lease, like the reconciler's) removes the text that
outlived its team's transcript_retention_days (or the service default), keeping the grades and reports."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from datetime import datetime, timedelta

import structlog
from sqlalchemy import Engine
from sqlmodel import Session

from app.config import Settings
from app.runner.leased import leased_forever
from app.runner.runtime import Runtime
from app.store import db
from app.store import retention as store
from app.store.db import session_scope
from app.store.models import utcnow

LEASE_NAME = "retention"
PER_TRANSACTION = 50  # evaluations or batches stripped per pass of a team, each in its own transaction
log = structlog.get_logger("helmbench.retention")


@dataclass(frozen=True)
class Swept:
    evaluations: int
    batches: int


def sweep_once(engine: Engine, settings: Settings, now: datetime | None = None) -> Swept:
    """Remove every expired text now; returns how many evaluations and batches lost theirs."""
    now = now or utcnow()
    with Session(engine) as session:
        teams = store.team_retention(session=session)
    evaluations = batches = 0
    for team_id, own in teams.items():
        days = own or settings.transcript_retention_days
        if days is None:
            continue
        cutoff = now - timedelta(days=days)
        while True:
            with session_scope(engine) as session:
                ids = store.expired_evaluations(
                    session=session, team_id=team_id, finished_before=cutoff, limit=PER_TRANSACTION
                )
                for evaluation_id in ids:
                    store.remove_evaluation_text(session=session, evaluation_id=evaluation_id, days=days)
                gone = store.expired_batches(
                    session=session, team_id=team_id, finished_before=cutoff, limit=PER_TRANSACTION
                )
                for batch_id in gone:
                    store.remove_batch_text(session=session, batch_id=batch_id, days=days)
            evaluations, batches = evaluations + len(ids), batches + len(gone)
            if len(ids) < PER_TRANSACTION and len(gone) < PER_TRANSACTION:
                break
    if evaluations or batches:
        db.checkpoint(engine)
        log.info("transcripts removed after their retention", evaluations=evaluations, batches=batches)
    return Swept(evaluations, batches)


async def retention_forever(deps: Runtime) -> None:
    """Every retention_period_s, if this process holds the lease, sweep; survives any one failure."""
    period = deps.settings.retention_period_s

    async def one_pass() -> float:
        await asyncio.to_thread(sweep_once, deps.engine, deps.settings)
        return period

    await leased_forever(
        deps,
        LEASE_NAME,
        period=period,
        ttl=max(3 * period, 60.0),
        one_pass=one_pass,
        log=log,
        failed="retention sweep failed",
    )


def start_retention(deps: Runtime) -> asyncio.Task[None]:
    return asyncio.create_task(retention_forever(deps), name="helmbench-retention")


async def stop_retention(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
