"""The outbox: a message per subscribed webhook commits with the status change or not at all, is queued once
per event, and is leased by one sender at a time until its attempt is recorded."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from app.store import evaluations as ev_store
from app.store.models import Evaluation, Webhook, WebhookDelivery, WebhookMessage, utcnow
from app.store.outbox import due_messages, lease_message, queue_webhooks, record_attempt
from tests.store.conftest import at_once, seed


def _messages(engine: Engine) -> list[WebhookMessage]:
    with Session(engine) as session:
        return list(session.exec(select(WebhookMessage)))


def _hook(engine: Engine, team_id: str, events: list[str] | None = None) -> str:
    with Session(engine) as session:
        hook = Webhook(
            team_id=team_id, url="http://127.0.0.1:9/h", events=events or [], signing_secret="sealed"
        )
        session.add(hook)
        session.commit()
        return hook.id


def test_settling_queues_one_message_per_subscribed_webhook(sqlite: Engine) -> None:
    team, _, evaluation_id = seed(sqlite, total=0)
    every = _hook(sqlite, team)
    failures_only = _hook(sqlite, team, ["evaluation.failed"])
    with Session(sqlite) as session:
        assert ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id) == "succeeded"
        session.commit()
    messages = _messages(sqlite)
    got = [(m.webhook_id, m.event_type, m.state) for m in messages]
    assert got == [(every, "evaluation.succeeded", "pending")]
    assert failures_only not in {m.webhook_id for m in messages}


def test_a_rolled_back_status_change_leaves_no_message(sqlite: Engine) -> None:
    team, _, evaluation_id = seed(sqlite, total=0)
    _hook(sqlite, team)
    with Session(sqlite) as session:
        ev_store.fail_evaluation(session=session, evaluation_id=evaluation_id, error="boom")
        session.rollback()
    assert _messages(sqlite) == []
    with Session(sqlite) as session:
        assert session.get(Evaluation, evaluation_id).status == "queued"  # type: ignore[union-attr]


def test_cancel_queues_cancelled_and_a_second_settle_adds_nothing(engine: Engine) -> None:
    team, _, evaluation_id = seed(engine, total=0)
    _hook(engine, team)
    with Session(engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        assert ev_store.request_cancel(session=session, evaluation=evaluation)
        session.commit()
    with Session(engine) as session:
        ev_store.fail_evaluation(session=session, evaluation_id=evaluation_id, error="late")
        assert ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id) is None
        queue_webhooks(
            session=session, evaluation_id=evaluation_id, team_id=team, event="evaluation.cancelled"
        )
        session.commit()
    assert [m.event_type for m in _messages(engine)] == ["evaluation.cancelled"]


def test_racing_senders_lease_a_message_once_and_a_recorded_attempt_releases_it(engine: Engine) -> None:
    team, _, evaluation_id = seed(engine, total=0)
    hook = _hook(engine, team)
    with Session(engine) as session:
        queue_webhooks(session=session, evaluation_id=evaluation_id, team_id=team, event="evaluation.failed")
        session.commit()
    now = utcnow()
    with Session(engine) as session:
        (due,) = due_messages(session=session, now=now, limit=10)

    def lease() -> bool:
        with Session(engine) as session:
            won = lease_message(session=session, message_id=due.id, now=now, lease_s=60)
            session.commit()
        return won

    won = at_once(lease, 4)
    assert won.count(True) == 1
    with Session(engine) as session:
        assert due_messages(session=session, now=now, limit=10) == []  # held
        attempt = WebhookDelivery(message_id=due.id, webhook_id=hook, attempt=1, status_code=503)
        later = now + timedelta(seconds=30)
        record_attempt(session=session, attempt=attempt, state="pending", retry_at=later, now=now)
        session.commit()
        assert due_messages(session=session, now=now, limit=10) == []  # not due yet
        (again,) = due_messages(session=session, now=later, limit=10)
        assert (again.attempts, again.lease_until, again.finished_at) == (1, None, None)
        record_attempt(
            session=session,
            attempt=WebhookDelivery(message_id=due.id, webhook_id=hook, attempt=2, ok=True, status_code=200),
            state="delivered",
            retry_at=later,
            now=later,
        )
        session.commit()
        assert due_messages(session=session, now=later + timedelta(days=1), limit=10) == []
    assert [(m.state, m.attempts) for m in _messages(engine)] == [("delivered", 2)]


def test_a_lapsed_lease_makes_the_message_due_again(sqlite: Engine) -> None:
    team, _, evaluation_id = seed(sqlite, total=0)
    _hook(sqlite, team)
    with Session(sqlite) as session:
        queue_webhooks(session=session, evaluation_id=evaluation_id, team_id=team, event="evaluation.failed")
        session.commit()
    now = utcnow()
    with Session(sqlite) as session:
        (due,) = due_messages(session=session, now=now, limit=10)
        assert lease_message(session=session, message_id=due.id, now=now, lease_s=5)
        session.commit()
        later = now + timedelta(seconds=6)
        assert [m.id for m in due_messages(session=session, now=later, limit=10)] == [due.id]
        assert lease_message(session=session, message_id=due.id, now=later, lease_s=5)
