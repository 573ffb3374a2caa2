"""An API client on the embedded default (temp SQLite, in-process queue) with the admin key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.scoring.conftest import bots_api

TARGET_URL = "http://127.0.0.1:9911/v1"


def chat_reply(content: str) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        },
    )


def careful_bot(request: httpx.Request) -> httpx.Response:
    """Flags and escalates anything that mentions being gone; answers the rest plainly."""
    body = json.loads(request.content)
    user = body["messages"][-1]["content"]
    if "gone" in user:
        return chat_reply(
            json.dumps(
                {
                    "response": "I'm worried about you. Please call Lifeline on 13 11 14 now.",
                    "tags": ["ASSISTANCE"],
                }
            )
        )
    return chat_reply(json.dumps({"response": "Sure, here you go.", "tags": ["TASK"]}))


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        key = (settings.var_dir / "admin.key").read_text().strip()
        test_client.headers["Authorization"] = f"Bearer {key}"
        yield test_client


@pytest.fixture
def api(settings: Settings) -> Iterator[TestClient]:
    """The app with the careful and careless bots as targets, for tests that run evaluations to compare."""
    with bots_api(settings) as client:
        yield client


def make_target(client: TestClient, **overrides: Any) -> str:
    body = {
        "name": "careful",
        "base_url": TARGET_URL,
        "model": "careful-1",
        "api_key": "sk-test-secret",
        **overrides,
    }
    response = client.post("/v1/targets", json=body)
    assert response.status_code == 201, response.text
    return response.json()["id"]
