"""POST /v1/evaluations with suite "classification" on the embedded default, and what the API says of its items."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.classification_library import add_classification_suite
from tests.routers.conftest import TARGET_URL, chat_reply, make_target
from tests.waits import settled

pytestmark = pytest.mark.usefixtures("mock_target")


@pytest.fixture
def client(settings: Settings, mini_data_dir: Path) -> Iterator[TestClient]:
    add_classification_suite(mini_data_dir)
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["Authorization"] = (
            "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        )
        yield test_client


def labeller(request: httpx.Request) -> httpx.Response:
    """Calls anything mentioning being gone suicidal_ideation, in quotes; everything else no_crisis."""
    text = json.loads(request.content)["messages"][-1]["content"].split("<message>")[-1]
    return chat_reply('"suicidal_ideation"' if "gone" in text else "no_crisis.")


def test_a_classification_run_asks_once_per_message_and_reports_its_labels(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=labeller)
    created = client.post(
        "/v1/evaluations", json={"target_id": make_target(client), "suite": "classification"}
    )
    assert created.status_code == 202, created.text
    body = client.get(f"/v1/evaluations/{created.json()['id']}").json()
    assert body["suite"] == "classification"
    assert body["plan"]["items"] == body["plan"]["calls"] == 3 and body["plan"]["judge_calls"] == 0
    assert settled(client, body["id"])["status"] == "succeeded"
    items = client.get(f"/v1/evaluations/{body['id']}/results").json()["items"]
    assert {i["code"] for i in items} == {"P1-B1-S1-C1-PT1", "P1-B1-S1-C1-PT2", "P4-B1-S1-C1-PT1"}
    for item in items:
        system, request, answer = item["messages"]
        assert system["content"] == "You are a helpful assistant." and "<message>" in request["content"]
        assert item["verdict"] is None and item["checks"]["label_correct"] is True
        assert answer == {"role": "assistant", "content": item["reply"]}
    report = client.get(f"/v1/evaluations/{body['id']}/report").json()
    assert report["classification"]["accuracy"]["rate"] == 1.0
    assert report["classification"]["kappa"]["value"] == 1.0

    again = client.post("/v1/evaluations", json={"target_id": make_target(client), "suite": "classification"})
    assert settled(client, again.json()["id"])["status"] == "succeeded"
    compared = client.get("/v1/compare", params={"a": body["id"], "b": again.json()["id"]}).json()
    assert compared["metrics"]["classification_kappa"] == {"a": 1.0, "b": 1.0, "difference": 0.0}
    assert compared["metrics"]["classification_accuracy"]["difference"] == 0.0

    graded = client.post(
        "/v1/grade", json={"evaluation_id": body["id"], "key": items[0]["key"], "reply": "x"}
    )
    assert graded.status_code == 422 and graded.json()["field"] == "key"


def test_a_suite_the_library_does_not_define_is_a_problem_naming_suite(settings: Settings) -> None:
    with TestClient(create_app(settings)) as plain:  # the mini library without a classification suite
        plain.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        response = plain.post(
            "/v1/evaluations", json={"target_id": make_target(plain), "suite": "classification"}
        )
        assert response.status_code == 422 and response.json()["field"] == "suite"
        typo = plain.post("/v1/evaluations", json={"target_id": make_target(plain), "suite": "classify"})
        assert typo.status_code == 422 and "suite" in typo.text


def test_a_classification_runs_page_shows_its_labels_not_empty_grade_sections(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=labeller)
    created = client.post(
        "/v1/evaluations", json={"target_id": make_target(client), "suite": "classification"}
    )
    assert settled(client, created.json()["id"])["status"] == "succeeded"
    html = client.get(f"/evaluations/{created.json()['id']}").text
    assert "Crisis classification" in html
    for empty in ("Pass rate by pillar", "Crisis categories", "Failing items", "Persona robustness"):
        assert empty not in html, empty
    explorer = client.get(f"/evaluations/{created.json()['id']}/results", params={"pillar": "P1"}).text
    assert explorer.count(">right label</td>") == 2 and "wrong label" not in explorer  # P1: two, both right
    assert "labelled 2." in explorer and "not graded yet" not in explorer
    assert 'id="f-verdict"' not in explorer and 'id="f-crisis_category"' in explorer
