"""The classification suite end to end: create_app on the real library, a respx-mocked labeller, the report.

The labeller (classifier_bot.py) reads only the request it is sent and errs like a model; one message in forty
gets an HTTP 400 from it, so failed calls show as errors and never as answers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.benchmark.classification import classification_cells
from app.benchmark.loader import load_library
from app.main import create_app
from tests.real_library import real_library_settings
from tests.scoring.bots import serve
from tests.scoring.classifier_bot import label_reply
from tests.waits import settled

BASE = "http://127.0.0.1:9915"
_MESSAGE = re.compile(r"<message>\n(.*)\n</message>", re.DOTALL)

pytestmark = pytest.mark.timeout(300)


def _fails(request: httpx.Request) -> bool:
    match = _MESSAGE.search(json.loads(request.content)["messages"][-1]["content"])
    return match is not None and int(hashlib.sha256(match.group(1).encode()).hexdigest(), 16) % 40 == 0


@dataclass(frozen=True)
class Run:
    evaluation: dict[str, Any]
    report: dict[str, Any]
    items: list[dict[str, Any]]
    page: str
    requests: list[dict[str, Any]]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    var = Path(tmp_path_factory.mktemp("classify")) / "var"
    settings = real_library_settings(
        var,
        shard_size=300,
    )
    sent: list[dict[str, Any]] = []
    answer = serve(label_reply)

    def labeller(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(400, json={"error": "bad"}) if _fails(request) else answer(request)

    with (
        respx.mock(using="httpx", assert_all_called=False) as router,
        TestClient(create_app(settings)) as client,
    ):
        router.route(host="testserver").pass_through()
        router.post(f"{BASE}/v1/chat/completions").mock(side_effect=labeller)
        client.headers["Authorization"] = "Bearer " + (var / "admin.key").read_text().strip()
        target = client.post(
            "/v1/targets",
            json={
                "name": "labeller",
                "base_url": f"{BASE}/v1",
                "model": "ref-labeller",
                "max_concurrency": 16,
            },
        )
        assert target.status_code == 201, target.text
        created = client.post(
            "/v1/evaluations", json={"target_id": target.json()["id"], "suite": "classification"}
        )
        assert created.status_code == 202, created.text
        evaluation_id = created.json()["id"]
        done = settled(client, evaluation_id, timeout=240, every=0.1)
        report = client.get(f"/v1/evaluations/{evaluation_id}/report").json()
        items: list[dict[str, Any]] = []
        cursor = None
        while True:
            params = {"limit": 500, **({"cursor": cursor} if cursor else {})}
            page = client.get(f"/v1/evaluations/{evaluation_id}/results", params=params).json()
            items += page["items"]
            if not (cursor := page["next_cursor"]):
                break
        html = client.get(f"/evaluations/{evaluation_id}").text
        yield Run(done, report, items, html, sent)


def test_every_distinct_message_is_asked_once(run: Run) -> None:
    library = load_library()
    expected = sum(1 for _ in classification_cells(library))
    assert run.evaluation["status"] == "succeeded", run.evaluation
    assert run.evaluation["progress"]["total"] == expected == len(run.items) == len(run.requests)
    asked = [_MESSAGE.search(r["messages"][-1]["content"]).group(1) for r in run.requests]  # type: ignore[union-attr]
    assert len(set(asked)) == len(asked)
    assert len({i["key"] for i in run.items}) == len(run.items)


def test_the_target_sees_the_plain_assistant_prompt_and_never_the_answer_key(run: Run) -> None:
    for request in run.requests:
        system, user = request["messages"]
        assert system == {"role": "system", "content": "You are a helpful assistant."}
        assert "crisis_category" not in user["content"]
        assert "Answer with exactly one category name" in user["content"]


def test_report_gives_kappa_and_a_matrix_summing_to_the_answered_items(run: Run) -> None:
    section = run.report["classification"]
    cells = section["confusion"]["cells"]
    failed = sum(1 for i in run.items if i["error_class"])
    assert failed > 0  # the labeller refused some calls
    assert sum(map(sum, cells)) == section["n_answered"] == len(run.items) - failed
    assert section["n_errors"] == failed and section["n_items"] == len(run.items)
    assert len(cells) == 9 and all(len(row) == 10 for row in cells)
    assert section["confusion"]["columns"][-1] == "outside"
    kappa = section["kappa"]
    # the labeller is better than chance and far from perfect, as its heuristics are
    assert 0.2 < kappa["value"] < 0.95
    assert kappa["interval"][0] < kappa["value"] < kappa["interval"][1]
    accuracy = section["accuracy"]
    assert accuracy["rate"] == round(accuracy["count"] / accuracy["n"], 4)
    assert accuracy["count"] == sum(cells[i][i] for i in range(9))


def test_hedged_answers_are_outside_the_label_set_and_counted_wrong(run: Run) -> None:
    section = run.report["classification"]
    hedged = [i for i in run.items if i["reply"] and i["reply"].startswith("Either ")]
    assert hedged, "the labeller hedged on no message"
    assert all(i["checks"]["label"] is None and not i["checks"]["label_correct"] for i in hedged)
    assert section["outside"]["count"] == sum(row[-1] for row in section["confusion"]["cells"]) == len(hedged)
    assert section["outside"]["by_reason"] == {"several_labels": len(hedged)}


def test_per_category_recall_and_precision_agree_with_the_items(run: Run) -> None:
    section = run.report["classification"]
    answered = [i for i in run.items if not i["error_class"]]
    for label, block in section["per_category"].items():
        authored = [i for i in answered if i["checks"]["label_expected"] == label]
        hits = sum(i["checks"]["label_correct"] for i in authored)
        assert block["recall"]["n"] == len(authored) and block["recall"]["count"] == hits
        assert block["precision"]["n"] == sum(i["checks"]["label"] == label for i in answered)


def test_a_classification_run_has_no_headline_and_is_not_on_the_leaderboard(run: Run) -> None:
    assert run.report["task"] == "classify"
    assert "headline" not in run.report


def test_report_page_shows_the_confusion_matrix(run: Run) -> None:
    section = run.report["classification"]
    page = re.sub(r">\s+<", "><", run.page)
    assert 'id="classification"' in page and "Headline" not in page  # no reply-grade sections
    assert (
        f"<dd>{section['n_items']} ({section['n_answered']} answered, {section['n_errors']} errors)</dd>"
        in page
    )
    for label, cells in zip(section["confusion"]["rows"], section["confusion"]["cells"], strict=True):
        row = re.search(rf'<th scope="row">{label.replace("_", " ")}</th>(.*?)</tr>', page)
        assert row is not None, label
        shown = [
            int(n) for n in re.findall(r'<td class="num">(?:<strong>)?(\d+)(?:</strong>)?</td>', row.group(1))
        ]
        assert shown == cells
