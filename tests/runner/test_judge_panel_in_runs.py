"""A panel of three judges during a run: each item gets the median, keeps every judge's raw answers, and the
report measures how far the judges agree and lists the items they split on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import respx
from fastapi.testclient import TestClient
from sqlmodel import Session, create_engine, select

from app.config import Settings
from app.store.models import Evaluation, EvaluationItem
from tests.routers.conftest import TARGET_URL, careful_bot, chat_reply, make_target
from tests.runner.test_judge_in_runs import RUBRIC
from tests.waits import settled

JUDGES = {name: f"http://127.0.0.1:{port}/v1" for name, port in (("a", 9921), ("b", 9922), ("c", 9923))}
CRISIS_CODE = "P1-B1-S1-C1-PT1"


def grading(crisis: tuple[str, int], other: tuple[str, int]) -> Callable[[httpx.Request], httpx.Response]:
    """A judge that answers (verdict, score) for a reply that escalated (careful_bot's crisis reply names
    Lifeline), and `other` for every other reply."""

    def answer(request: httpx.Request) -> httpx.Response:
        prompt = json.loads(request.content)["messages"][1]["content"]
        verdict, score = crisis if "Lifeline" in prompt.split("## Reply to grade", 1)[1] else other
        return chat_reply(
            json.dumps({"verdict": verdict, "score": score, "rationale": f"{verdict} at {score}"})
        )

    return answer


def run_with_panel(
    settings: Settings, mock_target: respx.MockRouter, answers: dict[str, Callable[..., httpx.Response]]
) -> tuple[dict[str, Any], dict[str, EvaluationItem], Evaluation]:
    path = Path(settings.data_dir) / "scenarios" / "P1-B1-S1.yaml"
    path.write_text(path.read_text() + RUBRIC)
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    for name, url in JUDGES.items():
        mock_target.post(f"{url}/chat/completions").mock(side_effect=answers[name])
    from app.main import create_app

    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        judges = [
            {"base_url": url, "model": f"judge-{name}", "api_key": f"sk-judge-{name}"}
            for name, url in JUDGES.items()
        ]
        body = {"target_id": make_target(client), "suite": "full", "judges": judges}
        response = client.post("/v1/evaluations", json=body)
        assert response.status_code == 202, response.text
        evaluation_id = response.json()["id"]
        assert settled(client, evaluation_id)["status"] == "succeeded"
        report = client.get(f"/v1/evaluations/{evaluation_id}/report").json()
        items = client.get(f"/v1/evaluations/{evaluation_id}/results").json()["items"]
    codes = {i["key"]: i["code"] for i in items}
    with Session(create_engine(settings.sqlalchemy_url)) as session:
        rows = session.exec(select(EvaluationItem).where(EvaluationItem.evaluation_id == evaluation_id)).all()
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        return report, {codes[r.key]: r for r in rows}, evaluation


def test_a_three_judge_panel_takes_the_median_and_reports_the_split(
    settings: Settings, mock_target: respx.MockRouter
) -> None:
    answers = {
        "a": grading(crisis=("PASS", 5), other=("PARTIAL", 3)),
        "b": grading(crisis=("PASS", 5), other=("PARTIAL", 3)),
        "c": grading(crisis=("FAIL", 2), other=("PARTIAL", 3)),  # three points below the others on crisis
    }
    report, rows, evaluation = run_with_panel(settings, mock_target, answers)
    crisis = rows[CRISIS_CODE]
    assert crisis.panel_scores == [5.0, 5.0, 2.0]
    assert (crisis.score, crisis.verdict) == (5.0, "PASS")  # the median, and the median verdict
    assert crisis.judge is not None and [j["model"] for j in crisis.judge["judges"]] == [
        "judge-a",
        "judge-b",
        "judge-c",
    ]
    raws = [json.loads(j["samples"][0]["raw"][0]) for j in crisis.judge["judges"]]
    assert [(r["verdict"], r["score"]) for r in raws] == [("PASS", 5), ("PASS", 5), ("FAIL", 2)]
    assert crisis.judge["judges"][2]["verdict"] == "FAIL" and crisis.judge["judges"][2]["score"] == 2.0
    # a reply that did not escalate (the judges' `other` answer), whichever item comes first in the run order
    calm = next(r for r in rows.values() if r.panel_scores and "Lifeline" not in (r.reply or ""))
    assert calm.panel_scores == [3.0, 3.0, 3.0] and calm.score == 3.0

    judges = report["judges"]
    assert judges["panel"]["n_judges"] == 3 and judges["panel"]["n_items"] == len(rows)
    assert judges["panel"]["alpha"] is not None and judges["panel"]["alpha"] < 1.0
    split = judges["disagreements"]
    assert crisis.key in {i["key"] for i in split["items"]}
    assert all(i["spread"] >= 2 for i in split["items"]) and calm.key not in {
        i["key"] for i in split["items"]
    }
    versus = judges["rules_vs_judge"]  # every run item has the rules' grade beside the panel's
    assert versus["n"] == len(rows) and versus["mae"] is not None and versus["buckets"] is not None

    # the three keys are sealed together; the clear config names the judges and holds no key
    assert evaluation.judge_config is not None and len(evaluation.judge_config["judges"]) == 3
    assert "sk-judge" not in json.dumps(evaluation.judge_config)
    assert evaluation.judge_api_key_secret and "sk-judge" not in evaluation.judge_api_key_secret
    for name, url in JUDGES.items():
        sent = [c.request for c in mock_target.calls if str(c.request.url).startswith(url)]
        assert sent and all(r.headers["authorization"] == f"Bearer sk-judge-{name}" for r in sent)


def test_a_judge_that_never_answers_usably_leaves_a_null_and_the_rest_decide(
    settings: Settings, mock_target: respx.MockRouter
) -> None:
    answers = {
        "a": grading(crisis=("PASS", 5), other=("PARTIAL", 3)),
        "b": grading(crisis=("PASS", 4), other=("FAIL", 2)),
        "c": lambda request: chat_reply("Honestly this reply seems fine to me."),
    }
    report, rows, _ = run_with_panel(settings, mock_target, answers)
    crisis = rows[CRISIS_CODE]
    assert crisis.panel_scores == [5.0, 4.0, None]
    assert crisis.score == 4.5 and crisis.verdict == "PASS"  # the median of the two that answered
    unusable = crisis.judge["judges"][2] if crisis.judge else {}
    assert unusable["score"] is None and unusable["samples"][0]["answer"] is None
    assert unusable["samples"][0]["raw"][0] == "Honestly this reply seems fine to me."  # kept for audit
    assert report["judges"]["panel"]["by_judge"][2]["n_scored"] == 0
    assert (
        report["judges"]["panel"]["n_items"] == len(rows) and report["judges"]["panel"]["alpha"] is not None
    )
