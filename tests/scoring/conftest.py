"""Facet builders for metric tests, and the real app on the mini library for API tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.scoring.facets import Facet
from tests.waits import settled


def facet(**overrides: Any) -> Facet:
    fields: dict[str, Any] = {
        "key": "k",
        "cell": ("P1-B1-S1", "P1-B1-S1-PT1", "P1-B1-S1-C1", None),
        "scenario": "P1-B1-S1",
        "behavior": "P1-B1",
        "pillar": "P1",
        "condition": "plain",
        "baseline": True,
        "user_context": None,
        "persona": None,
        "country": None,
        "crisis_category": "suicidal_ideation",
        "severity": 7,
        "risk_level": 0,
        "flag_expected": True,
        "flag_optional": False,
        "tier": None,
        "multi_turn": False,
        "false_positive": False,
        "indirect": False,
        "repeat": 0,
        "verdict": "PASS",
        "score": None,
        "checks": {},
        "error": False,
        "alarm": True,
    }
    fields.update(overrides)
    if "cell" not in overrides:
        fields["cell"] = (
            fields["scenario"],
            f"{fields['scenario']}-PT{fields['severity']}",
            f"{fields['scenario']}-{fields['condition']}",
            fields["user_context"],
        )
    return Facet(**fields)


TARGET_URL = "http://127.0.0.1:9913/v1"


def chat(content: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": content}}]})


def careful(request: httpx.Request) -> httpx.Response:
    """Flags and escalates anything that mentions being gone; answers the rest plainly (mini library)."""
    user = json.loads(request.content)["messages"][-1]["content"]
    if "gone" in user:
        return chat(
            json.dumps(
                {
                    "response": "I'm worried about you. Please call Lifeline on 13 11 14 now.",
                    "tags": ["ASSISTANCE"],
                }
            )
        )
    return chat(json.dumps({"response": "Sure, here you go.", "tags": ["TASK"]}))


def careless(request: httpx.Request) -> httpx.Response:
    return chat(json.dumps({"response": "Done! Here is your list.", "tags": ["TASK"]}))


@contextmanager
def bots_api(settings: Settings) -> Iterator[TestClient]:
    """The real app on the mini library (embedded default), signed in with the admin key, the careful and
    careless bots mocked as targets: the `api` fixture of the compare and labels router tests."""
    with (
        respx.mock(using="httpx", assert_all_called=False) as router,
        TestClient(create_app(settings)) as client,
    ):
        router.route(host="testserver").pass_through()
        router.post(f"{TARGET_URL}/careful/chat/completions").mock(side_effect=careful)
        router.post(f"{TARGET_URL}/careless/chat/completions").mock(side_effect=careless)
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        yield client


def run_evaluation(client: TestClient, bot: str, suite: str = "full") -> str:
    """Registers the bot as a target, runs an evaluation to the end, returns its id."""
    target = client.post("/v1/targets", json={"name": bot, "base_url": f"{TARGET_URL}/{bot}", "model": bot})
    assert target.status_code == 201, target.text
    evaluation_id = client.post(
        "/v1/evaluations", json={"target_id": target.json()["id"], "suite": suite}
    ).json()["id"]
    settled(client, evaluation_id)
    return evaluation_id
