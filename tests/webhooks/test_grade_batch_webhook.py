"""`grade_batch.completed`: queued with the batch's completion, delivered signed like the evaluation events."""

from __future__ import annotations

import json

from sqlmodel import Session, select
from standardwebhooks.webhooks import Webhook as Verifier

from app.runner.runtime import Runtime
from app.store import grade_batches as store
from app.store.models import WebhookMessage
from tests.webhooks.conftest import MakeWebhook
from tests.webhooks.live_server import receiving
from tests.webhooks.test_delivery import _drain

TRANSCRIPT = {"country": "GB", "crisis_expected": False, "messages": [], "reply": "Plant garlic in October."}


def _complete_batch(deps: Runtime, team_id: str) -> str:
    """A batch of one graded line and one refused line, settled as its last job would."""
    with Session(deps.engine) as session:
        batch_id = store.create_batch(session=session, team_id=team_id).id
        rows = [
            store.LineRow(1, transcript=json.dumps(TRANSCRIPT)),
            store.LineRow(2, error_field="body", error="not JSON"),
        ]
        store.add_lines(session=session, batch_id=batch_id, rows=rows, last_line=2)
        store.mark_queued(session=session, batch_id=batch_id)
        store.mark_running(session=session, batch_id=batch_id)
        assert store.finish_if_complete(session=session, batch_id=batch_id) is None  # line 1 not graded yet
        store.save_grades(
            session=session, batch_id=batch_id, grades=[store.GradeRow(1, "PASS", '{"verdict": "PASS"}')]
        )
        assert store.finish_if_complete(session=session, batch_id=batch_id) == "succeeded"
        assert store.finish_if_complete(session=session, batch_id=batch_id) is None  # settled once
        session.commit()
    return batch_id


async def test_a_completed_batch_is_delivered_signed_once(
    deps: Runtime, team_id: str, make_webhook: MakeWebhook
) -> None:
    with receiving(statuses=[]) as receiver:
        _, secret = make_webhook(receiver.url)
        make_webhook("http://127.0.0.1:9/evaluations-only", ["evaluation.succeeded"])
        batch_id = _complete_batch(deps, team_id)
        with Session(deps.engine) as session:
            messages = list(session.exec(select(WebhookMessage)))
        assert [(m.grade_batch_id, m.evaluation_id, m.event_type) for m in messages] == [
            (batch_id, None, "grade_batch.completed")
        ]
        await _drain(deps)
        headers, body = receiver.wait_for(1)[0]
    event = Verifier(secret).verify(body, headers)
    assert event["type"] == "grade_batch.completed"
    assert {k: event["data"][k] for k in ("grade_batch_id", "status", "lines", "graded", "bad")} == {
        "grade_batch_id": batch_id,
        "status": "succeeded",
        "lines": 2,
        "graded": 1,
        "bad": 1,
    }
