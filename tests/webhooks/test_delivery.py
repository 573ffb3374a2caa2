"""Delivery to a real loopback receiver: Standard Webhooks signatures, bounded retries, a row per attempt."""

from __future__ import annotations

import asyncio
import json

from sqlmodel import Session, col, select
from standardwebhooks.webhooks import Webhook as Verifier

from app.runner.runtime import Runtime, build_runtime
from app.store import evaluations as ev_store
from app.store.models import Webhook, WebhookDelivery, WebhookMessage, utcnow
from app.webhooks.delivery import DeliveryPolicy, claim_due, deliver_due, webhook_client
from tests.webhooks.conftest import MakeEvaluation, MakeWebhook
from tests.webhooks.live_server import receiving


def _settle(deps: Runtime, evaluation_id: str) -> None:
    with Session(deps.engine) as session:
        assert ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id) == "succeeded"
        session.commit()


async def _drain(deps: Runtime, passes: int = 40) -> None:
    """Run delivery passes until nothing is pending (backoff in tests is 10 ms, doubling)."""
    policy = DeliveryPolicy.from_settings(deps.settings)
    async with webhook_client(deps.settings) as client:
        for _ in range(passes):
            await deliver_due(deps, client, policy)
            with Session(deps.engine) as session:
                pending = session.exec(select(WebhookMessage).where(WebhookMessage.state == "pending")).all()
            if not pending:
                return
            await asyncio.sleep(0.05)


def _attempts(deps: Runtime) -> list[WebhookDelivery]:
    with Session(deps.engine) as session:
        return list(session.exec(select(WebhookDelivery).order_by(col(WebhookDelivery.id))))


async def test_signed_and_retried_until_the_receiver_accepts(
    deps: Runtime, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    with receiving(statuses=[500, 503]) as receiver:
        _, secret = make_webhook(receiver.url)
        evaluation_id = make_evaluation()
        _settle(deps, evaluation_id)
        await _drain(deps)
        requests = receiver.wait_for(3)
    ids = {headers["webhook-id"] for headers, _ in requests}
    assert len(ids) == 1 and next(iter(ids)).startswith("msg_")  # one message, retried under one id
    headers, body = requests[-1]
    event = Verifier(secret).verify(body, headers)  # raises unless the HMAC-SHA256 signature is ours
    assert event["type"] == "evaluation.succeeded"
    assert event["data"]["evaluation_id"] == evaluation_id and event["data"]["status"] == "succeeded"
    assert [(a.attempt, a.ok, a.status_code) for a in _attempts(deps)] == [
        (1, False, 500),
        (2, False, 503),
        (3, True, 200),
    ]
    with Session(deps.engine) as session:
        message = session.exec(select(WebhookMessage)).one()
    assert message.state == "delivered" and message.attempts == 3


async def test_a_wrong_secret_does_not_verify(
    deps: Runtime, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    with receiving() as receiver:
        make_webhook(receiver.url)
        _, other_secret = make_webhook("http://127.0.0.1:9/unused", ["evaluation.failed"])
        _settle(deps, make_evaluation())
        await _drain(deps)
        headers, body = receiver.wait_for(1)[0]
    try:
        Verifier(other_secret).verify(body, headers)
    except Exception as exc:  # noqa: BLE001 - any verification error is the expected outcome
        assert "signature" in str(exc).lower()
    else:
        raise AssertionError("a signature made with another secret verified")


async def test_retries_are_bounded_and_each_attempt_is_recorded(
    deps: Runtime, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    with receiving(then=500) as receiver:
        make_webhook(receiver.url)
        _settle(deps, make_evaluation())
        await _drain(deps)
        await _drain(deps, passes=3)  # nothing more goes out once the message has failed
        assert len(receiver.requests) == deps.settings.webhook_max_attempts == 3
    assert [a.ok for a in _attempts(deps)] == [False, False, False]
    with Session(deps.engine) as session:
        message = session.exec(select(WebhookMessage)).one()
    assert message.state == "failed" and message.finished_at is not None


async def test_a_webhook_survives_a_crash_between_status_change_and_delivery(
    deps: Runtime, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    """The process that settles the evaluation dies before sending; another process sends it later."""
    with receiving() as receiver:
        make_webhook(receiver.url)
        _settle(deps, make_evaluation())
        deps.engine.dispose()  # the settling process is gone; nothing was sent
        assert receiver.requests == []
        later = build_runtime(deps.settings)
        try:
            await _drain(later)
        finally:
            later.engine.dispose()
        assert len(receiver.wait_for(1)) == 1


def test_two_senders_never_claim_the_same_message(
    deps: Runtime, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    make_webhook("http://127.0.0.1:9/a")
    _settle(deps, make_evaluation())
    first = claim_due(engine=deps.engine, secrets=deps.secrets)
    second = claim_due(engine=deps.engine, secrets=deps.secrets)
    assert len(first) == 1 and second == []


async def test_a_deleted_webhook_gets_nothing(
    deps: Runtime, make_evaluation: MakeEvaluation, make_webhook: MakeWebhook
) -> None:
    with receiving() as receiver:
        hook_id, _ = make_webhook(receiver.url)
        _settle(deps, make_evaluation())
        with Session(deps.engine) as session:
            hook = session.get(Webhook, hook_id)
            assert hook is not None
            hook.deleted_at = utcnow()
            session.add(hook)
            session.commit()
        await _drain(deps)
        assert receiver.requests == []
    assert [(a.ok, a.error) for a in _attempts(deps)] == [(False, "the webhook was deleted")]


def test_backoff_doubles_and_is_capped() -> None:
    policy = DeliveryPolicy(max_attempts=8, backoff_s=5, backoff_max_s=60, timeout_s=1)
    assert [policy.backoff(n) for n in range(1, 6)] == [5, 10, 20, 40, 60]


def test_payload_is_compact_json_with_the_outcome(deps: Runtime, make_evaluation: MakeEvaluation) -> None:
    from app.store.models import Evaluation
    from app.webhooks.delivery import payload

    evaluation_id = make_evaluation()
    _settle(deps, evaluation_id)
    with Session(deps.engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        body = payload(evaluation, "evaluation.succeeded")
    parsed = json.loads(body)
    assert parsed["type"] == "evaluation.succeeded" and parsed["timestamp"]
    assert parsed["data"]["report_url"] == f"/v1/evaluations/{evaluation_id}/report"


def test_payload_gives_the_headline_as_pages_show_it(deps: Runtime, make_evaluation: MakeEvaluation) -> None:
    """A receiver posting to a chat channel shows the same figure and band as the report page, not 0.0x."""
    from app.store.models import Evaluation
    from app.webhooks.delivery import payload

    evaluation_id = make_evaluation()
    _settle(deps, evaluation_id)
    with Session(deps.engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        evaluation.summary = {"headline": {"score": 0.2861, "floors": {}}, "overall": {"pass_rate": 0.61}}
        data = json.loads(payload(evaluation, "evaluation.succeeded"))["data"]
        evaluation.summary = {}
        empty = json.loads(payload(evaluation, "evaluation.succeeded"))["data"]
    assert (data["headline_score"], data["headline_score_100"], data["headline_band"]) == (0.2861, 28.61, "D")
    assert data["pass_rate"] == 0.61
    assert (empty["headline_score"], empty["headline_score_100"], empty["headline_band"]) == (
        None,
        None,
        None,
    )
