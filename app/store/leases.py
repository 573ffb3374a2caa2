"""Named leases in the database: a duty (re-queueing shards) that one process at a time performs.

The holder renews its lease well before it lapses; a holder that dies or loses the database lets it lapse, and
the next process to ask takes it. Times are the asking process's clock: a skew between machines shifts when a
lapsed lease is taken over, never lets two holders renew the same lease at once (the update is guarded).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import col

from app.store.models import ServiceLease, utcnow


def hold_lease(*, engine: Engine, name: str, holder: str, ttl_s: float) -> bool:
    """Take the lease if it is free or lapsed, renew it if `holder` has it; True if `holder` holds it now."""
    now = utcnow()
    until = now + timedelta(seconds=ttl_s)
    insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
    with engine.begin() as conn:
        conn.execute(
            insert(ServiceLease)
            .values(name=name, holder=holder, lease_until=until)
            .on_conflict_do_nothing(index_elements=["name"])
        )
        won = conn.execute(
            update(ServiceLease)
            .where(
                col(ServiceLease.name) == name,
                or_(col(ServiceLease.holder) == holder, col(ServiceLease.lease_until) < now),
            )
            .values(holder=holder, lease_until=until)
        )
    return bool(won.rowcount)


def release_lease(*, engine: Engine, name: str, holder: str) -> None:
    """Give the lease up at once (a process stopping), if `holder` still has it."""
    with engine.begin() as conn:
        conn.execute(
            update(ServiceLease)
            .where(col(ServiceLease.name) == name, col(ServiceLease.holder) == holder)
            .values(lease_until=utcnow() - timedelta(seconds=1))
        )
