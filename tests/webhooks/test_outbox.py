"""The outbox row commits with the status change, or not at all; one message per subscribed webhook."""

from __future__ import annotations

from sqlmodel import Session, select

from app.runner.deps import EngineDeps
from app.store import evaluations as ev_store
from app.store.models import Evaluation, WebhookMessage
from tests.webhooks.conftest import MakeEvaluation, MakeWebhook


def _messages(deps: EngineDeps) -> list[WebhookMessage]:
    with Session(deps.engine) as session:
        return list(session.exec(select(WebhookMessage)))


def test_settling_queues_one_message_per_subscribed_webhook(
    deps: EngineDeps, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    every, _ = make_webhook("http://127.0.0.1:9/a")
    failures_only, _ = make_webhook("http://127.0.0.1:9/b", ["evaluation.failed"])
    evaluation_id = make_evaluation()
    with Session(deps.engine) as session:
        assert ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id) == "succeeded"
        session.commit()
    messages = _messages(deps)
    got = [(m.webhook_id, m.event_type, m.state) for m in messages]
    assert got == [(every, "evaluation.succeeded", "pending")]
    assert failures_only not in {m.webhook_id for m in messages}


def test_a_rolled_back_status_change_leaves_no_message(
    deps: EngineDeps, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    make_webhook("http://127.0.0.1:9/a")
    evaluation_id = make_evaluation()
    with Session(deps.engine) as session:
        ev_store.fail_evaluation(session=session, evaluation_id=evaluation_id, error="boom")
        session.rollback()
    assert _messages(deps) == []
    with Session(deps.engine) as session:
        assert session.get(Evaluation, evaluation_id).status == "queued"  # type: ignore[union-attr]


def test_cancel_queues_cancelled_and_a_second_settle_adds_nothing(
    deps: EngineDeps, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    make_webhook("http://127.0.0.1:9/a")
    evaluation_id = make_evaluation()
    with Session(deps.engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        assert ev_store.request_cancel(session=session, evaluation=evaluation)
        session.commit()
    with Session(deps.engine) as session:
        ev_store.fail_evaluation(session=session, evaluation_id=evaluation_id, error="late")
        assert ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id) is None
        session.commit()
    assert [m.event_type for m in _messages(deps)] == ["evaluation.cancelled"]
