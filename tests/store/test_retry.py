"""Database calls retry what a new connection can cure, for a bounded time, and nothing else."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import text
from structlog.testing import capture_logs

from app.config import Settings
from app.store.db import make_engine
from app.store.retry import db_call, is_transient
from bench.tcp_proxy import CuttablePostgres
from tests.waits import eventually_async


def test_outages_are_transient_and_bugs_are_not() -> None:
    dropped = sa_exc.OperationalError("SELECT 1", {}, Exception("server closed the connection"))
    invalidated = sa_exc.DBAPIError("SELECT 1", {}, Exception("reset"), connection_invalidated=True)
    duplicate = sa_exc.IntegrityError("INSERT", {}, Exception("duplicate key"))
    assert is_transient(dropped) and is_transient(invalidated) and is_transient(sa_exc.TimeoutError())
    assert not is_transient(duplicate) and not is_transient(ValueError("bug"))


async def test_a_bug_is_raised_at_once_not_retried() -> None:
    calls = 0

    def buggy() -> None:
        nonlocal calls
        calls += 1
        raise ValueError("a bug")

    with pytest.raises(ValueError):
        await db_call(30, buggy)
    assert calls == 1


async def test_a_call_on_an_object_holding_a_whole_library_costs_no_description_of_it() -> None:
    """The reconciler calls its own methods; describing one by repr() would render the library it holds on
    every call, which froze a service's event loop for minutes."""

    class HoldsALibrary:
        def __repr__(self) -> str:
            raise AssertionError("the callable's owner was rendered")

        def count(self) -> int:
            return 3

    assert await db_call(1.0, HoldsALibrary().count) == 3


@pytest.mark.postgres
async def test_a_call_during_an_outage_completes_once_the_database_is_back(postgres_url: str) -> None:
    proxy = CuttablePostgres(postgres_url)
    engine = make_engine(Settings(database_url=proxy.url))
    try:
        with engine.connect() as conn:  # a pooled connection that the outage will drop
            conn.execute(text("SELECT 1"))

        def one() -> int:
            with engine.connect() as conn:
                return int(conn.execute(text("SELECT 41 + 1")).scalar_one())

        proxy.cut()
        with capture_logs() as logs:
            call = asyncio.create_task(db_call(30, one))
            await eventually_async(lambda: any(e["event"] == "database call failed; retrying" for e in logs))
            proxy.restore()
            assert await call == 42
    finally:
        proxy.close()
        engine.dispose()


@pytest.mark.postgres
async def test_an_outage_longer_than_the_budget_raises(postgres_url: str) -> None:
    proxy = CuttablePostgres(postgres_url)
    engine = make_engine(Settings(database_url=proxy.url))
    proxy.cut()

    def one() -> None:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    try:
        with pytest.raises(sa_exc.OperationalError):
            await db_call(0.5, one)
    finally:
        proxy.close()
        engine.dispose()
