"""The API's webhook delivery loop outlives a database outage and delivers what was due once it is back."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlmodel import Session
from structlog.testing import capture_logs

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.store import evaluations as ev_store
from app.store.migrate import upgrade
from app.webhooks.delivery import start_delivery, stop_delivery
from bench.tcp_proxy import CuttablePostgres
from tests.waits import eventually_async
from tests.webhooks.conftest import MakeEvaluation, MakeWebhook
from tests.webhooks.live_server import receiving

pytestmark = pytest.mark.postgres


@pytest.fixture
def proxy(postgres_url: str) -> Iterator[CuttablePostgres]:
    cuttable = CuttablePostgres(postgres_url)
    yield cuttable
    cuttable.close()


@pytest.fixture
def deps(hook_settings: Settings, proxy: CuttablePostgres) -> Iterator[Runtime]:
    """The conftest's world on PostgreSQL, reached through a proxy the test can cut."""
    settings = hook_settings.model_copy(update={"database_url": proxy.url, "webhook_poll_s": 0.05})
    upgrade(settings)
    built = build_runtime(settings)
    yield built
    built.engine.dispose()


async def test_delivery_carries_on_after_an_outage(
    deps: Runtime, proxy: CuttablePostgres, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    with receiving() as receiver:
        make_webhook(receiver.url)
        evaluation_id = make_evaluation()
        proxy.cut()
        with capture_logs() as logs:
            loop = start_delivery(deps)
            await eventually_async(lambda: any(e["event"] == "webhook delivery pass failed" for e in logs))
            proxy.restore()
            with Session(deps.engine) as session:  # settled after the outage: its message is new
                assert (
                    ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id) == "succeeded"
                )
                session.commit()
            delivered = await asyncio.to_thread(receiver.wait_for, 1)
            await stop_delivery(loop)
    assert len(delivered) == 1
