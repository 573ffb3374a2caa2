"""A bare conversation (no system message) on every adapter: no system role or field on the wire, turns intact."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from app.targets.base import TargetConfig
from app.targets.factory import KINDS, make_adapter
from app.targets.retry import RetryPolicy

TURNS = [
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": "reply one"},
    {"role": "user", "content": "second"},
]
URL = "https://bot.example.com/v1"
# Each adapter: where it posts, its config extras, a reply it can read, and what the body must (not) hold.
CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "openai_chat": (
        f"{URL}/chat/completions",
        {},
        {"choices": [{"message": {"role": "assistant", "content": "ok"}}]},
    ),
    "anthropic_messages": (f"{URL}/messages", {}, {"content": [{"type": "text", "text": "ok"}]}),
    "http_json": (
        URL,
        {
            "request_template": {"persona": "{{system}}", "all": "{{messages}}", "history": "{{turns}}"},
            "reply_pointer": "/text",
        },
        {"text": "ok"},
    ),
}


def test_every_adapter_is_covered() -> None:
    assert set(CASES) == set(KINDS)


def _system_free(body: dict[str, Any], kind: str) -> list[dict[str, str]]:
    """The turns the body carries, after checking it carries no system prompt anywhere."""
    if kind == "openai_chat":
        return list(body["messages"])
    if kind == "anthropic_messages":
        assert "system" not in body
        return list(body["messages"])
    assert body["persona"] == "" and body["all"] == body["history"]
    return list(body["all"])


@pytest.mark.parametrize("kind", sorted(CASES))
@respx.mock
async def test_no_system_message_is_sent_when_there_is_none(
    kind: str, client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    url, extra, reply = CASES[kind]
    route = respx.post(url).mock(return_value=httpx.Response(200, json=reply))
    config = TargetConfig(kind=kind, base_url=URL, model="m", **extra)
    result = await make_adapter(client, config, fast_policy, 100_000).complete(list(TURNS))
    assert result.ok and result.text == "ok"
    body = json.loads(route.calls.last.request.content)
    turns = _system_free(body, kind)
    assert [m["role"] for m in turns] == ["user", "assistant", "user"]
    assert [m["content"] for m in turns] == ["first", "reply one", "second"]
    assert "system" not in json.dumps(turns)
