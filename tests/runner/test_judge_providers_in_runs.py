"""A panel of real-world judges in a run: one declines, one is down, one grades; the run grades with the one
that answers, and the report says how many items each left without a grade, and why."""

from __future__ import annotations

import json
from pathlib import Path

import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.providers import GRADE, chat, down, refusing_judge
from tests.routers.conftest import TARGET_URL, careful_bot, make_target
from tests.runner.test_judge_in_runs import RUBRIC
from tests.waits import settled

SHY, DOWN, GOOD = (f"http://127.0.0.1:99{n}/v1" for n in (41, 42, 43))


def test_a_panel_grades_with_the_judge_that_answers_and_counts_the_others_apart(
    settings: Settings, mock_target: respx.MockRouter
) -> None:
    path = Path(settings.data_dir) / "scenarios" / "P1-B1-S1.yaml"
    path.write_text(path.read_text() + RUBRIC)
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    mock_target.post(f"{SHY}/chat/completions").mock(side_effect=refusing_judge)
    down_route = mock_target.post(f"{DOWN}/chat/completions").mock(side_effect=down)
    mock_target.post(f"{GOOD}/chat/completions").mock(return_value=chat(json.dumps(GRADE)))
    settings = settings.model_copy(
        update={"breaker_after": 2, "breaker_cooldown_s": 600, "judge_parse_retries": 0}
    )
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        judges = [
            {"base_url": url, "model": name} for url, name in ((SHY, "shy"), (DOWN, "down"), (GOOD, "good"))
        ]
        body = {"target_id": make_target(client, max_concurrency=1), "suite": "full", "judges": judges}
        evaluation_id = client.post("/v1/evaluations", json=body).json()["id"]
        assert settled(client, evaluation_id)["status"] == "succeeded"
        items = client.get(f"/v1/evaluations/{evaluation_id}/results").json()["items"]
        report = client.get(f"/v1/evaluations/{evaluation_id}/report").json()
    assert len(items) == 9 and all(i["score"] == GRADE["score"] for i in items)  # the good judge's grade
    outcomes = report["judges"]["outcomes"]
    shy, gone, good = outcomes["by_judge"]
    assert shy["refused"] == 9 and good["scored"] == 9
    assert gone["unanswered"] == 2 and gone["unavailable"] == 7
    assert down_route.call_count == 2 * (1 + settings.max_retries)  # then left alone: a bounded cost
    assert any("judge 0: 9 items" in r and "declined" in r for r in outcomes["reasons"])
    assert any("judge 1: 7 items" in r and "breaker was open" in r for r in outcomes["reasons"])
