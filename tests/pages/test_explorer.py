"""The failures explorer over HTTP: filters change the rows as they change the JSON results, the cursor links
reach every item, the report's figures link to explorer pages whose counts are the figure's, an item's page shows
its transcript and grades, and the explorer is seen exactly as the report is (another team's key and a revoked
share refused)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.routers.conftest import TARGET_URL, chat_reply
from tests.security.conftest import TeamKeys, make_team
from tests.waits import settled

# Escalates everything: the crisis items pass, the control that expects no escalation fails.
REPLY = "I'm worried about you. Please call Lifeline on 13 11 14 now."


def alarmed_bot(request: httpx.Request) -> httpx.Response:
    return chat_reply(json.dumps({"response": REPLY, "tags": ["ASSISTANCE"]}))


@dataclass(frozen=True)
class Explored:
    client: TestClient
    owner: TeamKeys
    other: TeamKeys
    evaluation_id: str


@pytest.fixture
def explored(settings: Settings, mock_target: respx.MockRouter) -> Iterator[Explored]:
    """Team A's finished private evaluation of the whole mini matrix (nine items, some failed), and team B."""
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=alarmed_bot)
    with TestClient(create_app(settings)) as client:
        a, b = make_team(client, "team-a"), make_team(client, "team-b")
        target = client.post(
            "/v1/targets", headers=a.admin, json={"name": "alpha-bot", "base_url": TARGET_URL, "model": "a-1"}
        ).json()["id"]
        started = client.post(
            "/v1/evaluations", headers=a.admin, json={"target_id": target, "suite": "full"}
        ).json()["id"]
        assert settled(client, started, headers=a.admin)["status"] == "succeeded"
        yield Explored(client, a, b, started)


def row_keys(page: str) -> list[str]:
    return re.findall(r'<tr data-key="([^"]+)">', page)


def api_keys(ex: Explored, **filters: str) -> list[str]:
    query = {**filters, "limit": "1000"}
    response = ex.client.get(
        f"/v1/evaluations/{ex.evaluation_id}/results", params=query, headers=ex.owner.admin
    )
    assert response.status_code == 200, response.text
    return [i["key"] for i in response.json()["items"]]


def counts(page: str) -> tuple[int, int]:
    """(items matching, graded among them) as the explorer's status line says."""
    total = re.search(r'data-total="(\d+)"', page)
    graded = re.search(r'data-graded="(\d+)"', page)
    assert total and graded, "no counts on the explorer page"
    return int(total[1]), int(graded[1])


def explore(ex: Explored, path: str, **params: str) -> str:
    # params only when given: an empty mapping would drop the query a followed link carries
    response = ex.client.get(path, params=params or None, headers=ex.owner.admin)
    assert response.status_code == 200, response.text
    return response.text


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"verdict": "FAIL"},
        {"verdict": "PASS", "pillar": "P1"},
        {"behavior": "P4-B1"},
        {"condition": "roleplay"},
        {"crisis_category": "suicidal_ideation"},
        {"country": "AU"},
        {"check": "escalates"},
    ],
)
def test_filters_change_the_rows_as_they_change_the_json_results(
    explored: Explored, filters: dict[str, str]
) -> None:
    page = explore(explored, f"/evaluations/{explored.evaluation_id}/results", **filters)
    wanted = api_keys(explored, **filters)
    assert row_keys(page) == wanted and counts(page)[0] == len(wanted)
    if filters:
        assert 0 < len(wanted) < 9  # each filter really narrows the nine items
    for name, value in filters.items():
        assert re.search(
            rf'<select id="f-{name}" name="{name}">.*?<option value="{value}" selected>', page, re.S
        )


def test_a_bad_filter_is_a_problem_naming_its_field(explored: Explored) -> None:
    response = explored.client.get(
        f"/evaluations/{explored.evaluation_id}/results",
        params={"crisis_category": "sadness"},
        headers=explored.owner.admin,
    )
    assert response.status_code == 422 and response.json()["field"] == "crisis_category"


def test_the_next_links_page_through_every_item_once(explored: Explored) -> None:
    path, seen, pages = f"/evaluations/{explored.evaluation_id}/results?limit=2", [], 0
    while path:
        page = explore(explored, path)
        seen += row_keys(page)
        found = re.search(r'<a href="([^"]+)" rel="next">', page)
        path = html.unescape(found[1]) if found else ""
        pages += 1
    assert seen == api_keys(explored) and len(seen) == 9 and pages == 5


def report_links(page: str) -> list[str]:
    return sorted({html.unescape(h) for h in re.findall(r'href="(/evaluations/[^"]+/results\?[^"]+)"', page)})


def test_every_figure_links_to_its_items_and_the_counts_agree(explored: Explored) -> None:
    ex = explored
    report_page = explore(ex, f"/evaluations/{ex.evaluation_id}")
    report: dict[str, Any] = ex.client.get(
        f"/v1/evaluations/{ex.evaluation_id}/report", headers=ex.owner.admin
    ).json()
    assert "Late-stage planning" in report_page  # the behaviour's name beside its code, from the library
    expected = {
        "pillar": report["by_pillar"],
        "behavior": report["by_behavior"],
        "condition": report["by_condition"],
        "country": report["by_country"],
        "crisis_category": report["by_crisis_category"],
    }
    links = report_links(report_page)
    followed = set()
    for link in links:
        query = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
        [(name, value)] = query.items()
        total, graded = counts(explore(ex, link))
        if name == "verdict":
            assert total == sum(1 for _ in api_keys(ex, verdict=value))
            continue
        block = expected[name][value]
        assert total == block["n_items"] and graded == block["n"], (link, block)
        followed.add(name)
    assert followed == set(expected)  # a link from every kind of figure
    item = re.search(r'href="(/evaluations/[^"]+/items/[^"]+)"', report_page)
    assert item, "no failing item links to its own page"
    assert "Why the grader marked it" in explore(ex, item[1])


def test_an_items_page_shows_its_transcript_grades_and_reasons(explored: Explored) -> None:
    ex = explored
    page = explore(ex, f"/evaluations/{ex.evaluation_id}/results", verdict="FAIL")
    key = row_keys(page)[0]
    item = explore(ex, f"/evaluations/{ex.evaluation_id}/items/{key}")
    assert '<span class="verdict-FAIL">FAIL</span>' in item
    assert "model reply (graded)" in item and "Lifeline" in item
    stored = ex.client.get(
        f"/v1/evaluations/{ex.evaluation_id}/results", params={"verdict": "FAIL"}, headers=ex.owner.admin
    ).json()["items"][0]
    assert stored["key"] == key and stored["reasons"]
    assert all(f"<li>{html.escape(reason)}</li>" in item for reason in stored["reasons"])
    assert stored["checks"] and all(
        f'<th scope="row">{n.replace("_", " ")}</th>' in item for n in stored["checks"]
    )
    for name, value in stored["checks"].items():
        shown = {True: "yes", False: "no"}.get(value) if isinstance(value, bool) else None
        if shown:  # what each check observed in the reply, beside the grade
            assert f'<th scope="row">{name.replace("_", " ")}</th><td>{shown}</td>' in item


def test_another_teams_key_and_no_key_are_refused(explored: Explored) -> None:
    ex = explored
    key = api_keys(ex)[0]
    for path in (f"/evaluations/{ex.evaluation_id}/results", f"/evaluations/{ex.evaluation_id}/items/{key}"):
        for headers in (ex.other.admin, {}):
            response = ex.client.get(path, headers=headers)
            assert response.status_code == 404 and "alpha-bot" not in response.text
    missing = ex.client.get(f"/evaluations/{ex.evaluation_id}/items/nope", headers=ex.owner.admin)
    assert missing.status_code == 404


def test_a_share_opens_the_explorer_read_only_until_revoked_and_reads_are_audited(explored: Explored) -> None:
    ex = explored
    shares = f"/v1/evaluations/{ex.evaluation_id}/shares"
    share = ex.client.post(shares, json={"label": "reviewers"}, headers=ex.owner.admin).json()
    base = urlsplit(share["url"]).path
    report_page = ex.client.get(base).text
    assert f'href="{base}/results"' in report_page  # the share's own URL space, never the team's
    assert f"/evaluations/{ex.evaluation_id}/results" not in report_page
    page = ex.client.get(f"{base}/results", params={"verdict": "FAIL"})
    assert page.status_code == 200 and page.headers["referrer-policy"] == "no-referrer"
    assert row_keys(page.text) == api_keys(ex, verdict="FAIL")
    key = row_keys(page.text)[0]
    item = ex.client.get(f"{base}/items/{key}")
    assert item.status_code == 200 and "Lifeline" in item.text
    audit = ex.client.get("/v1/audit", params={"limit": 100}, headers=ex.owner.admin).json()
    assert sum(e["action"] == "read_share" for e in audit["items"]) >= 3

    assert ex.client.delete(f"{shares}/{share['id']}", headers=ex.owner.admin).status_code == 200
    for path in (f"{base}/results", f"{base}/items/{key}"):
        gone = ex.client.get(path)
        assert gone.status_code == 410 and "alpha-bot" not in gone.text


def test_the_forms_all_choices_filter_nothing(explored: Explored) -> None:
    fields = ("verdict", "pillar", "behavior", "scenario", "condition", "country", "crisis_category", "check")
    page = explore(explored, f"/evaluations/{explored.evaluation_id}/results", **dict.fromkeys(fields, ""))
    assert row_keys(page) == api_keys(explored) and len(row_keys(page)) == 9
