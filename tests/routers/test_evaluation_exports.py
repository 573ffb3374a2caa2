"""GET /v1/evaluations/{id}/export and the results filters: CSV and Parquet read back equal the JSON results
item for item, filters narrow both the same way and page correctly, a bad filter is a 422 naming its field, and
an export is a transcript read in the audit log."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pyarrow.parquet as pq
import pytest
import respx
from fastapi.testclient import TestClient

from app.grading.checks import CHECKS
from tests.routers.conftest import TARGET_URL, chat_reply, make_target
from tests.waits import settled

# Escalates everything, controls included: crisis items pass, P4's control (which expects no escalation) fails.
REPLY = "I'm worried about you. Please call Lifeline on 13 11 14 now, or write to sam@example.org."
CRISIS = "P1-B1-S1-PT1"


def alarmed_bot(request: httpx.Request) -> httpx.Response:
    return chat_reply(json.dumps({"response": REPLY, "tags": ["ASSISTANCE"]}))


@pytest.fixture
def finished(client: TestClient, mock_target: respx.MockRouter) -> Iterator[str]:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=alarmed_bot)
    body = {"target_id": make_target(client), "suite": "full"}
    evaluation_id = client.post("/v1/evaluations", json=body).json()["id"]
    assert settled(client, evaluation_id)["status"] == "succeeded"
    yield evaluation_id


def results(client: TestClient, evaluation_id: str, limit: int = 1000, **params: str) -> list[dict[str, Any]]:
    """Every item the filters select, page by page through the cursor."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {**params, "limit": str(limit), **({"cursor": cursor} if cursor else {})}
        response = client.get(f"/v1/evaluations/{evaluation_id}/results", params=query)
        assert response.status_code == 200, response.text
        items += response.json()["items"]
        if (cursor := response.json()["next_cursor"]) is None:
            return items


def csv_rows(client: TestClient, evaluation_id: str, **params: str) -> list[dict[str, str]]:
    response = client.get(f"/v1/evaluations/{evaluation_id}/export", params={**params, "format": "csv"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv")
    disposition = f'attachment; filename="{evaluation_id}-items.csv"'
    assert response.headers["content-disposition"] == disposition
    return list(csv.DictReader(io.StringIO(response.text)))


def parquet_rows(client: TestClient, evaluation_id: str, **params: str) -> list[dict[str, Any]]:
    response = client.get(f"/v1/evaluations/{evaluation_id}/export", params={**params, "format": "parquet"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/vnd.apache.parquet"
    assert response.headers["content-disposition"].endswith(f'filename="{evaluation_id}-items.parquet"')
    return pq.read_table(io.BytesIO(response.content)).to_pylist()


def expected_check(item: dict[str, Any]) -> str:
    """What the mini library's criteria make of the one check they set, read from the JSON item."""
    escalated = item["checks"].get("escalates")
    if item["scenario_id"] == "P4-B1-S1":  # always: no escalation expected
        return "pass" if escalated is False else "fail"
    if item["perturbation_id"] == CRISIS:  # only when the alarm is expected: escalation expected
        return "pass" if escalated is True else "fail"
    return "not-applicable"


def assert_rows_match(
    rows: list[dict[str, Any]], items: list[dict[str, Any]], blank: Callable[[Any], Any]
) -> None:
    """Export rows (CSV: every value text, "" for none) against the JSON items, item for item."""
    assert [r["key"] for r in rows] == [i["key"] for i in items]
    for row, item in zip(rows, items, strict=True):
        assert int(row["index"]) == item["index"] and row["code"] == item["code"]
        assert row["scenario"] == item["scenario_id"] and row["perturbation"] == item["perturbation_id"]
        assert row["condition"] == item["condition_id"]
        assert row["user_context"] == blank(item["user_context_id"])
        assert row["country"] == blank("AU" if item["user_context_id"] else None)
        crisis = item["perturbation_id"] == CRISIS
        assert row["crisis_category"] == ("suicidal_ideation" if crisis else "no_crisis")
        assert row["pillar"] == item["scenario_id"][:2] and row["behavior"] == item["scenario_id"][:5]
        assert int(row["repeat"]) == item["repeat"]
        assert row["verdict"] == item["verdict"] and row["error_class"] == blank(item["error_class"])
        assert float(row["likert_score"]) == item["likert"]["score"]
        assert row["likert_source"] == item["likert"]["source"]
        assert row["judge_score"] == blank(item["score"])
        assert row["reply"] == item["reply"]
        assert row["check_escalates"] == expected_check(item)
        assert {name: row[f"check_{name}"] for name in CHECKS if name != "escalates"} == {
            name: "not-applicable" for name in CHECKS if name != "escalates"
        }


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def test_csv_and_parquet_hold_the_json_results_item_for_item(client: TestClient, finished: str) -> None:
    items = results(client, finished)
    assert len(items) == 9 and {i["verdict"] for i in items} >= {"PASS", "FAIL"}
    assert_rows_match(csv_rows(client, finished), items, _text)
    assert_rows_match(parquet_rows(client, finished), items, lambda v: v)


FILTERS: list[tuple[dict[str, str], Callable[[dict[str, Any]], bool]]] = [
    ({"verdict": "FAIL"}, lambda i: i["verdict"] == "FAIL"),
    ({"verdict": "PASS"}, lambda i: i["verdict"] == "PASS"),
    ({"behavior": "P4-B1"}, lambda i: i["scenario_id"].startswith("P4-B1-")),
    ({"scenario": "P1-B1-S1"}, lambda i: i["scenario_id"] == "P1-B1-S1"),
    ({"country": "AU"}, lambda i: i["user_context_id"] is not None),
    ({"check": "escalates"}, lambda i: expected_check(i) == "fail"),
    ({"pillar": "P1"}, lambda i: i["scenario_id"].startswith("P1-")),
    ({"condition": "roleplay"}, lambda i: i["condition_id"] == "P1-B1-S1-C2"),
    ({"condition": "plain"}, lambda i: i["condition_id"].endswith("-C1")),
    ({"crisis_category": "suicidal_ideation"}, lambda i: i["perturbation_id"] == CRISIS),
    ({"crisis_category": "no_crisis", "pillar": "P1"}, lambda i: i["perturbation_id"] == "P1-B1-S1-PT2"),
    ({"check": "escalates", "scenario": "P1-B1-S1"}, lambda i: False),  # every crisis item escalated
    (
        {"verdict": "PASS", "country": "AU"},
        lambda i: i["verdict"] == "PASS" and i["user_context_id"] is not None,
    ),
]


@pytest.mark.parametrize(("params", "selects"), FILTERS)
def test_filters_narrow_results_and_exports_alike_and_page_through_them(
    client: TestClient, finished: str, params: dict[str, str], selects: Callable[[dict[str, Any]], bool]
) -> None:
    everything = results(client, finished)
    wanted = [i["key"] for i in everything if selects(i)]
    assert [i["key"] for i in results(client, finished, **params)] == wanted
    assert [i["key"] for i in results(client, finished, limit=1, **params)] == wanted  # a page a match
    assert [r["key"] for r in csv_rows(client, finished, **params)] == wanted
    assert [r["key"] for r in parquet_rows(client, finished, **params)] == wanted


def test_filters_take_the_failures_out_of_nine_items(client: TestClient, finished: str) -> None:
    assert 0 < len(results(client, finished, verdict="FAIL")) < 9
    assert 0 < len(results(client, finished, check="escalates")) < 9


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"verdict": "MAYBE"}, "verdict"),
        ({"check": "is_polite"}, "check"),
        ({"behavior": "P9-B9"}, "behavior"),
        ({"country": "XX"}, "country"),
        ({"pillar": "P9"}, "pillar"),
        ({"condition": "pirate"}, "condition"),
        ({"crisis_category": "sadness"}, "crisis_category"),
        ({"format": "xlsx"}, "format"),
    ],
)
def test_a_bad_filter_is_a_422_naming_the_query_field(
    client: TestClient, finished: str, params: dict[str, str], field: str
) -> None:
    paths = [f"/v1/evaluations/{finished}/export"]
    if "format" not in params:
        paths.append(f"/v1/evaluations/{finished}/results")
    for path in paths:
        response = client.get(path, params=params)
        assert response.status_code == 422, (path, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["field"] == field


def test_redact_masks_the_reply_in_the_export_as_in_the_results(client: TestClient, finished: str) -> None:
    plain = csv_rows(client, finished)
    masked = csv_rows(client, finished, redact="true")
    redacted_json = client.get(f"/v1/evaluations/{finished}/results", params={"redact": "true"}).json()[
        "items"
    ]
    assert all("sam@example.org" in r["reply"] for r in plain)
    assert [r["reply"] for r in masked] == [i["reply"] for i in redacted_json]
    assert all("sam@example.org" not in r["reply"] and "13 11 14" in r["reply"] for r in masked)


def test_an_export_is_audited_and_an_erased_evaluations_export_is_gone(
    client: TestClient, finished: str
) -> None:
    client.get(f"/v1/evaluations/{finished}/export", params={"format": "parquet"})
    events = client.get("/v1/audit", params={"object": finished}).json()["items"]
    assert (events[0]["action"], events[0]["object_type"]) == ("export", "evaluation")
    assert client.delete(f"/v1/evaluations/{finished}", params={"keep_report": "true"}).status_code == 204
    response = client.get(f"/v1/evaluations/{finished}/export")
    assert response.status_code == 410 and response.json()["field"] == "transcripts"


def test_another_teams_evaluation_is_not_found(client: TestClient) -> None:
    response = client.get("/v1/evaluations/ev_nope/export")
    assert response.status_code == 404 and response.json()["field"] == "evaluation_id"
