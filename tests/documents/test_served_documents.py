"""Real reports, comparisons, batch reports and the catalogue, served by the app on the mini library against
respx-mocked targets and judges, each held to the schema /openapi.json publishes for it: what a typed client
generated from the description expects is what it gets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.classification_library import add_classification_suite
from tests.documents.fits import misfits, served_fits
from tests.routers.conftest import TARGET_URL, careful_bot, chat_reply, make_target
from tests.routers.test_grade_batches import TRANSCRIPTS, upload, wait_settled
from tests.waits import settled

REPORT = "/v1/evaluations/{evaluation_id}/report"
JUDGES = [f"http://127.0.0.1:99{n}/v1" for n in (41, 42)]
pytestmark = pytest.mark.usefixtures("mock_target")


def judge_answer(score: int) -> httpx.Response:
    content = json.dumps({"verdict": "PASS" if score >= 4 else "FAIL", "score": score, "rationale": "Kind."})
    return httpx.Response(200, json={"choices": [{"message": {"content": content}}]})


def labeller(request: httpx.Request) -> httpx.Response:
    """A classifier that calls anything mentioning being gone suicidal ideation, the rest no crisis."""
    text = json.loads(request.content)["messages"][-1]["content"]
    return chat_reply('"suicidal_ideation"' if "gone" in text else "no_crisis")


def target_bot(request: httpx.Request) -> httpx.Response:
    """The careful bot for replies, the labeller for the classify suite's prompts."""
    text = json.loads(request.content)["messages"][-1]["content"]
    return labeller(request) if "<message>" in text else careful_bot(request)


@pytest.fixture
def client(settings: Settings, mini_data_dir: Path, mock_target: respx.MockRouter) -> Iterator[TestClient]:
    add_classification_suite(mini_data_dir)
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=target_bot)
    mock_target.post(f"{JUDGES[0]}/chat/completions").mock(return_value=judge_answer(5))
    mock_target.post(f"{JUDGES[1]}/chat/completions").mock(return_value=judge_answer(2))
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["Authorization"] = (
            "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        )
        yield test_client


def run(client: TestClient, target_id: str, **body: Any) -> str:
    created = client.post("/v1/evaluations", json={"target_id": target_id, **body})
    assert created.status_code == 202, created.text
    assert settled(client, created.json()["id"])["status"] == "succeeded"
    return str(created.json()["id"])


def test_reports_of_every_kind_fit_their_published_schema(client: TestClient) -> None:
    target = make_target(client)
    panel = [{"base_url": url, "model": f"judge-{i}"} for i, url in enumerate(JUDGES)]
    rules = run(client, target, suite="full", visibility="public")
    judged = run(client, target, suite="full", judges=panel)
    classified = run(client, target, suite="classification")

    by_rules = served_fits(client, REPORT, f"/v1/evaluations/{rules}/report")
    assert by_rules["grader"]["method"] == "rules" and "note" in by_rules["grader"]
    assert by_rules["calibration"] is None and "conversations" not in by_rules
    by_panel = served_fits(client, REPORT, f"/v1/evaluations/{judged}/report")
    assert by_panel["grader"]["method"] == "panel" and by_panel["judges"]["panel"]["n_judges"] == 2
    assert by_panel["judges"]["disagreements"]["n"] > 0 and by_panel["judges"]["rules_vs_judge"]["n"] > 0
    labels = client.get(f"/v1/evaluations/{judged}/results").json()["items"][:3]
    sent = [{"key": i["key"], "verdict": "PASS", "score": 4, "checks": {"escalates": True}} for i in labels]
    assert client.post(f"/v1/evaluations/{judged}/labels", json=sent).status_code == 200
    calibrated = served_fits(client, REPORT, f"/v1/evaluations/{judged}/report")
    assert calibrated["calibration"]["n_labelled"] == 3
    classification = served_fits(client, REPORT, f"/v1/evaluations/{classified}/report")
    assert classification["task"] == "classify" and "headline" not in classification

    public = served_fits(client, "/v1/leaderboard/{evaluation_id}/report", f"/v1/leaderboard/{rules}/report")
    assert public["evaluation_id"] == rules
    compared = served_fits(client, "/v1/compare", f"/v1/compare?a={rules}&b={judged}")
    assert set(compared["paired"]["overall"]) == {"pass", "score"}
    served_fits(client, "/v1/compare", f"/v1/compare?a={classified}&b={classified}")

    deleted = client.delete(f"/v1/evaluations/{rules}", params={"keep_report": "true"})
    assert deleted.status_code == 204
    kept = served_fits(client, REPORT, f"/v1/evaluations/{rules}/report")
    assert kept["transcripts"].startswith("deleted")


def test_a_batch_report_and_the_catalogue_fit_their_published_schema(client: TestClient) -> None:
    lines = "\n".join(json.dumps(t) for t in TRANSCRIPTS) + "\n{not json\n"
    batch = upload(client, lines).json()
    wait_settled(client, batch["id"])
    report = served_fits(
        client, "/v1/grade/batches/{batch_id}/report", f"/v1/grade/batches/{batch['id']}/report"
    )
    assert report["bad_lines"] == 1 and report["n_items"] == len(TRANSCRIPTS)
    catalogue = served_fits(client, "/v1/benchmark", "/v1/benchmark")
    assert catalogue["stats"]["benchmark_version"] == catalogue["version"]


def test_a_document_that_strays_from_its_schema_is_caught(client: TestClient) -> None:
    """The check itself can fail: an undeclared key, a null where none happens, a missing section."""
    target = make_target(client)
    body = client.get(f"/v1/evaluations/{run(client, target, suite='quick')}/report").json()
    openapi = client.get("/openapi.json").json()
    assert misfits(openapi, REPORT, body) == []
    for broken in (
        {**body, "surprise": 1},
        {**body, "headline": {**body["headline"], "capped": None}},
        {k: v for k, v in body.items() if k != "grader"},
        {**body, "simulated": None},
    ):
        assert misfits(openapi, REPORT, broken), broken.keys()


def test_only_the_sections_some_runs_lack_are_optional(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    matrix = schemas["MatrixReport"]
    assert set(matrix["properties"]) - set(matrix["required"]) == {
        "conversations",
        "simulated",
        "transcripts",
    }
    assert matrix["additionalProperties"] is False
    nullable = {
        name
        for name, prop in matrix["properties"].items()
        if any(option.get("type") == "null" for option in prop.get("anyOf", []))
    }
    assert nullable == {"ungraded_share", "error_share", "calibration"}


def test_the_resources_around_a_run_fit_their_published_schema(client: TestClient) -> None:
    """Fields with a default are in every answer, so the schema requires them: the bodies must carry them."""
    target = make_target(client)
    evaluation = run(client, target, suite="quick", visibility="public")
    assert client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]  # rendered in the background
    for template, url in [
        ("/v1/targets/{target_id}", f"/v1/targets/{target}"),
        ("/v1/evaluations/{evaluation_id}", f"/v1/evaluations/{evaluation}"),
        ("/v1/evaluations", "/v1/evaluations"),
        ("/v1/evaluations/{evaluation_id}/results", f"/v1/evaluations/{evaluation}/results"),
        ("/v1/leaderboard", "/v1/leaderboard"),
        ("/v1/leaderboard/{evaluation_id}/results", f"/v1/leaderboard/{evaluation}/results"),
        ("/healthz", "/healthz"),
        ("/readyz", "/readyz"),
    ]:
        served_fits(client, template, url)
    batch = upload(client, json.dumps(TRANSCRIPTS[0]) + "\n").json()
    wait_settled(client, batch["id"])
    for suffix in ("", "/results", "/errors"):
        served_fits(
            client, "/v1/grade/batches/{batch_id}" + suffix, f"/v1/grade/batches/{batch['id']}{suffix}"
        )
