"""The outbox and its leases on PostgreSQL: insert-or-ignore, one claim per message, signed delivery."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session, select
from standardwebhooks.webhooks import Webhook as Verifier

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.store import evaluations as ev_store
from app.store.migrate import upgrade
from app.store.models import WebhookMessage
from app.store.outbox import queue_settled_webhooks
from app.webhooks.delivery import DeliveryPolicy, claim_due, deliver_due, webhook_client
from tests.webhooks.conftest import MakeEvaluation, MakeWebhook
from tests.webhooks.live_server import receiving

pytestmark = pytest.mark.postgres


@pytest.fixture
def deps(hook_settings: Settings, postgres_url: str) -> Iterator[Runtime]:
    """The conftest's world, on a fresh PostgreSQL database."""
    settings = Settings(**{**hook_settings.model_dump(), "database_url": postgres_url})
    upgrade(settings)
    built = build_runtime(settings)
    yield built
    built.engine.dispose()


async def test_settle_claim_once_and_deliver_signed(
    deps: Runtime, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    assert deps.engine.dialect.name == "postgresql"
    with receiving() as receiver:
        _, secret = make_webhook(receiver.url)
        evaluation_id = make_evaluation()
        with Session(deps.engine) as session:
            assert ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id) == "succeeded"
            session.commit()
            queue_settled_webhooks(session=session, evaluation_id=evaluation_id)  # again: no new row
            session.commit()
            assert len(session.exec(select(WebhookMessage)).all()) == 1
        claimed = claim_due(engine=deps.engine, secrets=deps.secrets)
        assert len(claimed) == 1 and claim_due(engine=deps.engine, secrets=deps.secrets) == []
        with Session(deps.engine) as session:  # give the lease back, as an expired one would be
            message = session.exec(select(WebhookMessage)).one()
            message.lease_until = None
            session.add(message)
            session.commit()
        async with webhook_client(deps.settings) as client:
            assert await deliver_due(deps, client, DeliveryPolicy.from_settings(deps.settings)) == 1
        headers, body = receiver.wait_for(1)[0]
    assert Verifier(secret).verify(body, headers)["data"]["evaluation_id"] == evaluation_id
    with Session(deps.engine) as session:
        assert session.exec(select(WebhookMessage)).one().state == "delivered"
