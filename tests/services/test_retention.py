"""The retention sweep removes the text of runs older than the team's (or the service's) retention and keeps
their grades and reports; a marker sent in the messages and replies is then nowhere in the SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import respx
from fastapi.testclient import TestClient
from sqlalchemy import Engine, update

from app.config import Settings
from app.main import create_app
from app.services.retention import Swept, sweep_once
from app.store.migrate import upgrade
from app.store.models import Evaluation, GradeBatch, utcnow
from tests.routers.conftest import TARGET_URL
from tests.routers.test_erasure import marked_bot, run_marked, sqlite_bytes, table_text


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def retained(
    request: pytest.FixtureRequest, settings: Settings, marker: str
) -> Iterator[tuple[TestClient, Settings]]:
    """The app with a 30-day service default, on SQLite (the embedded default) and on PostgreSQL."""
    kept = settings.model_copy(update={"transcript_retention_days": 30})
    if request.param == "postgres":
        kept = kept.model_copy(update={"database_url": request.getfixturevalue("postgres_url")})
        upgrade(kept)
    with (
        respx.mock(using="httpx", assert_all_called=False) as router,
        TestClient(create_app(kept)) as client,
    ):
        router.route(host="testserver").pass_through()
        router.post(f"{TARGET_URL}/chat/completions").mock(side_effect=marked_bot(marker))
        client.headers["Authorization"] = f"Bearer {(kept.var_dir / 'admin.key').read_text().strip()}"
        yield client, kept


@pytest.fixture
def marker() -> str:
    import uuid

    return f"zqr-{uuid.uuid4().hex}-marker"


def finished_days_ago(engine: Engine, days: int) -> None:
    when = utcnow() - timedelta(days=days)
    with engine.begin() as conn:
        conn.execute(update(Evaluation).values(finished_at=when))
        conn.execute(update(GradeBatch).values(finished_at=when))


def test_old_text_is_removed_and_the_grades_and_reports_stay(
    retained: tuple[TestClient, Settings], marker: str, capfd: pytest.CaptureFixture[str]
) -> None:
    client, settings = retained
    engine = client.app.state.helmbench.deps.engine  # type: ignore[attr-defined]
    evaluation_id, batch_id = run_marked(client, marker)
    report = client.get(f"/v1/evaluations/{evaluation_id}/report").json()
    verdicts = [i["verdict"] for i in client.get(f"/v1/evaluations/{evaluation_id}/results").json()["items"]]
    assert sweep_once(engine, settings) == Swept(0, 0)  # not old enough yet

    finished_days_ago(engine, 31)
    assert sweep_once(engine, settings) == Swept(1, 1)
    assert sweep_once(engine, settings) == Swept(0, 0)

    if engine.dialect.name == "sqlite":
        assert marker.encode() not in sqlite_bytes(engine)
    assert marker not in table_text(engine)
    items = client.get(f"/v1/evaluations/{evaluation_id}/results").json()["items"]
    assert [i["verdict"] for i in items] == verdicts
    assert all(i["messages"] == [] and i["reply"] is None for i in items)
    kept = client.get(f"/v1/evaluations/{evaluation_id}/report").json()
    assert kept["overall"] == report["overall"]
    assert kept["transcripts"] == "transcripts removed after 30 days"
    lines = client.get(f"/v1/grade/batches/{batch_id}/results").json()["items"]
    assert len(lines) == 6 and all(line["result"]["verdict"] for line in lines)
    page = client.get(f"/evaluations/{evaluation_id}").text
    assert "Transcripts removed after 30 days" in page and marker not in page
    batch_report = client.get(f"/v1/grade/batches/{batch_id}/report").json()
    assert batch_report["transcripts"] == "transcripts removed after 30 days"
    out, err = capfd.readouterr()
    assert marker not in out + err


def test_a_team_keeps_its_transcripts_as_long_as_it_says(
    retained: tuple[TestClient, Settings], marker: str
) -> None:
    client, settings = retained
    engine = client.app.state.helmbench.deps.engine  # type: ignore[attr-defined]
    run_marked(client, marker)
    team_id = client.get("/v1/teams").json()[0]["id"]
    response = client.patch(f"/v1/teams/{team_id}", json={"transcript_retention_days": 90})
    assert response.status_code == 200 and response.json()["transcript_retention_days"] == 90
    finished_days_ago(engine, 31)
    assert sweep_once(engine, settings) == Swept(0, 0)
    finished_days_ago(engine, 91)
    assert sweep_once(engine, settings) == Swept(1, 1)
    assert client.patch(f"/v1/teams/{team_id}", json={"transcript_retention_days": 0}).status_code == 422
