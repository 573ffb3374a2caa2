"""Admission a user notices: the matrix size (422 naming repeats) and a team's active runs (429, then admitted)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.routers.conftest import TARGET_URL, careful_bot
from tests.security.conftest import make_team


@pytest.fixture
def bounded(settings: Settings) -> Iterator[TestClient]:
    tight = settings.model_copy(update={"max_matrix_items": 20, "max_active_evaluations": 1})
    with TestClient(create_app(tight)) as client:
        yield client


def _target(client: TestClient, headers: dict[str, str]) -> str:
    body = {"name": "t", "base_url": TARGET_URL, "model": "m"}
    return client.post("/v1/targets", headers=headers, json=body).json()["id"]


def test_an_evaluation_over_the_matrix_limit_is_422_naming_repeats(bounded: TestClient) -> None:
    team = make_team(bounded, "a")
    body = {"target_id": _target(bounded, team.member), "suite": "full", "repeats": 3}  # 9 x 3 = 27 > 20
    too_big = bounded.post("/v1/evaluations", headers=team.member, json=body)
    assert too_big.status_code == 422, too_big.text
    assert too_big.json()["field"] == "repeats" and "27 items" in too_big.json()["detail"]
    assert bounded.get("/v1/evaluations", headers=team.member).json()["items"] == []


async def _slow_bot(request: httpx.Request) -> httpx.Response:
    await asyncio.sleep(20)
    return careful_bot(request)


def test_a_team_with_an_active_evaluation_waits_for_it(
    bounded: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=_slow_bot)
    a, b = make_team(bounded, "a"), make_team(bounded, "b")
    target_a, target_b = _target(bounded, a.admin), _target(bounded, b.admin)
    first = bounded.post("/v1/evaluations", headers=a.admin, json={"target_id": target_a})
    assert first.status_code == 202
    second = bounded.post("/v1/evaluations", headers=a.admin, json={"target_id": target_a, "repeats": 2})
    assert second.status_code == 429 and second.json()["field"] == "status" and second.headers["retry-after"]
    other_team = bounded.post("/v1/evaluations", headers=b.admin, json={"target_id": target_b})
    assert other_team.status_code == 202  # the limit is per team
    bounded.post(f"/v1/evaluations/{first.json()['id']}/cancel", headers=a.admin)
    again = bounded.post("/v1/evaluations", headers=a.admin, json={"target_id": target_a, "repeats": 2})
    assert again.status_code == 202  # a cancelled evaluation no longer counts
    for evaluation, owner in ((again, a), (other_team, b)):
        cancel = f"/v1/evaluations/{evaluation.json()['id']}/cancel"
        assert bounded.post(cancel, headers=owner.admin).is_success
