"""Generic HTTP JSON: the template filled with typed placeholders, the reply found by JSON pointer."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from app.request_template import unknown_placeholders
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.http_json import resolve_pointer
from app.targets.retry import RetryPolicy

MESSAGES = [
    {"role": "system", "content": "You are Ada."},
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": "reply one"},
    {"role": "user", "content": "second"},
]
TEMPLATE = {
    "session": {"persona": "{{system}}", "history": "{{turns}}"},
    "input": "{{last_user}}",
    "meta": "model={{model}}",
    "limit": "{{max_tokens}}",
    "fixed": [1, True],
}


@respx.mock
async def test_template_filled_and_reply_pointer_followed(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    route = respx.post("https://bot.example.com/api/chat").mock(
        return_value=httpx.Response(
            200, json={"data": {"answers": [{"text/plain": "Hello from the product"}]}}
        )
    )
    config = TargetConfig(
        kind="http_json",
        base_url="https://bot.example.com/api/chat",
        model="prod-7",
        api_key="tok",
        max_tokens=200,
        request_template=TEMPLATE,
        reply_pointer="/data/answers/0/text~1plain",
        headers={"X-Tenant": "t1"},
    )
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert reply.ok and reply.text == "Hello from the product"
    sent = route.calls.last.request
    assert json.loads(sent.content) == {
        "session": {"persona": "You are Ada.", "history": MESSAGES[1:]},
        "input": "second",
        "meta": "model=prod-7",
        "limit": 200,
        "fixed": [1, True],
    }
    assert sent.headers["authorization"] == "Bearer tok" and sent.headers["x-tenant"] == "t1"


@respx.mock
async def test_pointer_to_missing_or_non_text_is_bad_response(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    respx.post("https://bot.example.com/chat").mock(return_value=httpx.Response(200, json={"data": {"n": 3}}))
    for pointer in ("/data/answer", "/data/n", "/data/n/0"):
        config = TargetConfig(
            kind="http_json",
            base_url="https://bot.example.com/chat",
            model="m",
            request_template={"q": "{{last_user}}"},
            reply_pointer=pointer,
        )
        reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
        assert reply.error_class == "bad_response", pointer


def test_pointer_rules() -> None:
    doc = {"a": [{"b~c": 1}], "": "root-key"}
    assert resolve_pointer(doc, "") is doc
    assert resolve_pointer(doc, "/a/0/b~0c") == 1
    assert resolve_pointer(doc, "/") == "root-key"
    with pytest.raises(IndexError):
        resolve_pointer(doc, "/a/5")
    with pytest.raises(KeyError):
        resolve_pointer(doc, "a")


def test_unknown_placeholders_are_reported() -> None:
    assert unknown_placeholders({"x": ["{{last_user}}", {"y": "{{secret}} and {{model}}"}]}) == {"secret"}


def test_adapter_refuses_config_without_template() -> None:
    with pytest.raises(ValueError, match="request_template"):
        make_adapter(
            httpx.AsyncClient(),
            TargetConfig(kind="http_json", base_url="https://b", model="m"),
            RetryPolicy(),
            1000,
        )
