"""POST /v1/evaluations with `judges`: 1-3 distinct judges, or the single `judge`, never both."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.routers.conftest import make_target


def judge(n: int, **extra: Any) -> dict[str, Any]:
    return {"base_url": f"http://127.0.0.1:99{20 + n}/v1", "model": f"judge-{n}", **extra}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"judge": judge(1), "judges": [judge(2)]}, "not both"),
        ({"judges": [judge(1), judge(2), judge(3), judge(4)]}, "at most 3"),
        ({"judges": []}, "at least 1"),
        ({"judges": [judge(1), judge(1, api_key="sk-other")]}, "different model or endpoint"),
    ],
)
def test_a_panel_outside_the_rules_is_a_problem_naming_judges(
    client: TestClient, extra: dict[str, Any], message: str
) -> None:
    response = client.post("/v1/evaluations", json={"target_id": make_target(client), **extra})
    assert response.status_code == 422 and response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["field"] == "judges" and message in problem["detail"]


def test_each_judge_url_is_checked_like_a_target_url(client: TestClient) -> None:
    judges = [judge(1), {"base_url": "http://169.254.169.254/v1", "model": "judge-2"}]
    response = client.post("/v1/evaluations", json={"target_id": make_target(client), "judges": judges})
    assert response.status_code == 422 and response.json()["field"] == "judges.1.base_url"


def test_a_bad_judge_inside_the_panel_is_named_by_its_place(client: TestClient) -> None:
    judges = [judge(1), judge(2, samples=99)]
    response = client.post("/v1/evaluations", json={"target_id": make_target(client), "judges": judges})
    assert response.status_code == 422 and response.json()["field"] == "judges.1.samples"
