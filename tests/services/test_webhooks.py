"""Webhook subscriptions as a team sees them: a deleted webhook stops being listed but its delivery history stays
readable, newest attempt first, with the message each attempt carried."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import Settings
from app.main import create_app
from app.store.db import make_engine
from app.store.models import Evaluation, Target, WebhookDelivery, WebhookMessage


@pytest.fixture
def api(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        yield client


def _attempts(settings: Settings, webhook_id: str, team_id: str, count: int) -> None:
    """Delivery attempts as the sender records them, for an evaluation of the team."""
    engine = make_engine(settings)
    try:
        with Session(engine) as session:
            target = Target(
                team_id=team_id, name="bot", kind="openai_chat", base_url="http://127.0.0.1:9", model="m"
            )
            session.add(target)
            session.flush()
            ev = Evaluation(
                team_id=team_id,
                target_id=target.id,
                target_name="bot",
                model="m",
                suite="quick",
                benchmark_version="v1",
                status="failed",
            )
            session.add(ev)
            session.flush()
            message = WebhookMessage(
                webhook_id=webhook_id, team_id=team_id, evaluation_id=ev.id, event_type="evaluation.failed"
            )
            session.add(message)
            session.flush()
            session.add_all(
                WebhookDelivery(message_id=message.id, webhook_id=webhook_id, attempt=n, status_code=503)
                for n in range(1, count + 1)
            )
            session.commit()
    finally:
        engine.dispose()


def test_a_deleted_webhooks_history_stays_readable_in_pages_newest_first(
    api: TestClient, settings: Settings
) -> None:
    hook = api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}).json()
    team_id = api.get("/v1/teams").json()[0]["id"]
    _attempts(settings, hook["id"], team_id, 3)
    assert api.delete(f"/v1/webhooks/{hook['id']}").status_code == 204
    assert hook["id"] not in {h["id"] for h in api.get("/v1/webhooks").json()}
    first = api.get(f"/v1/webhooks/{hook['id']}/deliveries", params={"limit": 2}).json()
    assert [d["attempt"] for d in first["items"]] == [3, 2]
    assert {d["event_type"] for d in first["items"]} == {"evaluation.failed"}
    rest = api.get(f"/v1/webhooks/{hook['id']}/deliveries", params={"cursor": first["next_cursor"]}).json()
    assert ([d["attempt"] for d in rest["items"]], rest["next_cursor"]) == ([1], None)


def test_unknown_webhooks_and_foreign_cursors_are_refused_naming_the_field(api: TestClient) -> None:
    missing = api.get("/v1/webhooks/wh_missing/deliveries")
    assert missing.status_code == 404 and missing.json()["field"] == "webhook_id"
    hook = api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}).json()
    bad = api.get(f"/v1/webhooks/{hook['id']}/deliveries", params={"cursor": "abc"})
    assert bad.status_code == 422 and bad.json()["field"] == "cursor"
    assert api.delete(f"/v1/webhooks/{hook['id']}").status_code == 204
    again = api.delete(f"/v1/webhooks/{hook['id']}")
    assert again.status_code == 404 and again.json()["field"] == "webhook_id"
