"""Webhook subscriptions: deleted ones stop receiving but keep their history, read newest first in pages."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from app.store.models import Webhook, WebhookDelivery, WebhookMessage, utcnow
from app.store.webhooks import deliveries, live_webhooks
from tests.store.conftest import seed


def test_live_webhooks_leave_out_deleted_and_other_teams_ones(sqlite: Engine) -> None:
    team, _, _ = seed(sqlite)
    other, _, _ = seed(sqlite)
    with Session(sqlite) as session:
        first = Webhook(team_id=team, url="https://a.example/1", signing_secret="s")
        gone = Webhook(team_id=team, url="https://a.example/2", signing_secret="s", deleted_at=utcnow())
        theirs = Webhook(team_id=other, url="https://b.example/1", signing_secret="s")
        session.add_all([first, gone, theirs])
        session.commit()
        assert [h.id for h in live_webhooks(session=session, team_id=team)] == [first.id]


def test_deliveries_page_newest_first_each_with_its_message(sqlite: Engine) -> None:
    team, _, ev = seed(sqlite)
    with Session(sqlite) as session:
        hook = Webhook(team_id=team, url="https://a.example/1", signing_secret="s", deleted_at=utcnow())
        message = WebhookMessage(
            webhook_id=hook.id, team_id=team, evaluation_id=ev, event_type="evaluation.failed"
        )
        session.add_all([hook, message])
        session.flush()
        session.add_all(
            WebhookDelivery(message_id=message.id, webhook_id=hook.id, attempt=n, status_code=500)
            for n in (1, 2, 3)
        )
        session.commit()
        page = deliveries(session=session, webhook_id=hook.id, before_id=None, limit=2)
        assert [d.attempt for d, _ in page] == [3, 2]
        assert {m.event_type for _, m in page} == {"evaluation.failed"}
        rest = deliveries(session=session, webhook_id=hook.id, before_id=page[-1][0].id, limit=2)
        assert [d.attempt for d, _ in rest] == [1]
