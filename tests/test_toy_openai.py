"""The toy OpenAI-compatible surface: what a client calling the example target or simulator sees."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.toy_openai import toy_chat_app


def _last_user(messages: list[dict[str, Any]]) -> str:
    return f"you said: {messages[-1]['content']}" if messages else "nothing said"


def test_a_chat_completion_carries_the_rules_answer_in_openai_shape() -> None:
    client = TestClient(toy_chat_app("Toy", "toy-1", _last_user))
    response = client.post(
        "/v1/chat/completions",
        json={"model": "toy-1", "messages": [{"role": "user", "content": "hello there"}]},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == "toy-1"
    choice = body["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": "you said: hello there"}
    assert choice["finish_reason"] == "stop"
    assert body["usage"]["completion_tokens"] == 4


def test_the_model_is_listed_and_echoed_when_the_request_names_none() -> None:
    client = TestClient(toy_chat_app("Toy", "toy-2", _last_user))
    models = client.get("/v1/models").json()
    assert [m["id"] for m in models["data"]] == ["toy-2"]
    body = client.post("/v1/chat/completions", json={}).json()
    assert body["model"] == "toy-2"
    assert body["choices"][0]["message"]["content"] == "nothing said"
