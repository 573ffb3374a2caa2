"""The probe: one call as a run makes it, through the guarded client, and why it failed in words."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
import respx

from app.grading.judges.judge import JudgeConfig, probe_check, probe_messages
from app.net.client import make_client
from app.net.ssrf import Allowlist
from app.runner.simulator import simulator_config
from app.targets.base import TargetConfig
from app.targets.probe import ProbeResult, probe
from tests.providers import chat, openai_error, reasoning_model, refused_port, refusing_judge

URL = "http://127.0.0.1:9914/v1"


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    client = make_client(
        max_connections=4, timeout=5, allowlist=Allowlist.parse("127.0.0.0/8"), max_response_bytes=100_000
    )
    async with client:
        yield client


@pytest.fixture
def provider() -> respx.MockRouter:
    with respx.mock(using="httpx", assert_all_called=False) as router:
        yield router


async def call(client: httpx.AsyncClient, config: TargetConfig, **extra: object) -> ProbeResult:
    return await probe(client, config, endpoint="target", max_reply_bytes=100_000, **extra)  # type: ignore[arg-type]


def target(base_url: str = URL, **extra: object) -> TargetConfig:
    return TargetConfig(kind="openai_chat", base_url=base_url, model="m-1", timeout_s=2.0, **extra)  # type: ignore[arg-type]


async def test_a_refused_port_says_connection_refused(client: httpx.AsyncClient) -> None:
    result = await call(client, target(f"http://127.0.0.1:{refused_port()}/v1"))
    assert not result.ok and "connection refused" in result.detail and result.status is None


async def test_an_unknown_host_name_says_dns(client: httpx.AsyncClient) -> None:
    guarded = make_client(
        max_connections=1, timeout=5, allowlist=Allowlist.parse(""), max_response_bytes=100_000
    )
    async with guarded:
        result = await call(guarded, target("http://no-such-host.invalid/v1"))
    assert not result.ok and result.detail.startswith("DNS:") and "no-such-host.invalid" in result.detail


async def test_an_internal_address_is_refused_by_the_same_guard_as_a_run(client: httpx.AsyncClient) -> None:
    result = await call(client, target("http://10.0.0.1/v1"))
    assert not result.ok and result.detail.startswith("the address is refused")


async def test_the_reasoning_models_parameters_are_named(
    client: httpx.AsyncClient, provider: respx.MockRouter
) -> None:
    provider.post(f"{URL}/chat/completions").mock(side_effect=reasoning_model("OK"))
    judge = JudgeConfig(base_url=URL, model="o-judge")  # our defaults: temperature 0 and a seed
    result = await call(client, judge.call_config(), messages=probe_messages())
    assert not result.ok and result.status == 400 and result.param == "temperature"
    assert "rejects the parameter `temperature`" in result.detail and '{"temperature": null}' in result.detail

    sim = simulator_config(
        kind="openai_chat",
        base_url=URL,
        model="o-sim",
        api_key=None,
        params=None,
        word_cap=40,
        max_concurrency=1,
        timeout_s=2,
    )
    result = await call(client, sim)
    assert not result.ok and result.param == "max_tokens" and "`max_tokens`" in result.detail

    fixed = simulator_config(
        kind="openai_chat",
        base_url=URL,
        model="o-sim",
        api_key=None,
        params={"max_tokens": None, "max_completion_tokens": 400},
        word_cap=40,
        max_concurrency=1,
        timeout_s=2,
    )
    assert (await call(client, fixed)).ok


async def test_a_parameter_named_only_in_the_message_is_found(
    client: httpx.AsyncClient, provider: respx.MockRouter
) -> None:
    provider.post(f"{URL}/chat/completions").mock(
        return_value=httpx.Response(400, json={"error": {"message": "top_k is not a valid argument"}})
    )
    result = await call(client, target(params={"top_k": 5}))
    assert result.param == "top_k" and "`top_k`" in result.detail


@pytest.mark.parametrize(
    ("response", "words"),
    [
        (openai_error(401, "Incorrect API key provided", param=None, code="invalid_api_key"), "credentials"),
        (httpx.Response(403, text="forbidden"), "credentials"),
        (
            openai_error(404, "The model `m-1` does not exist", param=None, code="model_not_found"),
            "unknown model",
        ),
        (openai_error(400, "no such model", param="model", code="model_not_found"), "unknown model 'm-1'"),
        (httpx.Response(503), "failed on its side"),
        (httpx.Response(200, json={"output": "hi"}), "a reply we cannot read as openai_chat"),
        (httpx.Response(200, text="<html>login</html>"), "a reply we cannot read"),
    ],
)
async def test_each_status_in_words(
    client: httpx.AsyncClient, provider: respx.MockRouter, response: httpx.Response, words: str
) -> None:
    provider.post(f"{URL}/chat/completions").mock(return_value=response)
    result = await call(client, target(api_key="sk-secret-1"))
    assert not result.ok and words in result.detail, result.detail
    assert "sk-secret-1" not in result.detail


async def test_a_timeout_in_words(client: httpx.AsyncClient, provider: respx.MockRouter) -> None:
    provider.post(f"{URL}/chat/completions").mock(side_effect=httpx.ReadTimeout("slow"))
    result = await call(client, target())
    assert not result.ok and result.detail.startswith("timeout: no answer")


async def test_a_tls_failure_in_words(client: httpx.AsyncClient) -> None:
    """https:// to a server that speaks plain HTTP: a real handshake fails."""

    async def plain_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(plain_http, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        result = await call(client, target(f"https://127.0.0.1:{port}/v1"))
    assert not result.ok and result.detail.startswith("TLS error talking to 127.0.0.1:")


async def test_a_rate_limited_endpoint_passes_and_a_good_one_answers(
    client: httpx.AsyncClient, provider: respx.MockRouter
) -> None:
    route = provider.post(f"{URL}/chat/completions")
    route.mock(return_value=httpx.Response(429))
    assert (await call(client, target())).ok
    route.mock(
        return_value=openai_error(
            429, "You exceeded your current quota", param=None, code="insufficient_quota"
        )
    )
    result = await call(client, target())
    assert not result.ok and "quota is used up" in result.detail
    route.mock(return_value=chat("OK"))
    result = await call(client, target())
    assert result.ok and result.detail.startswith("answered in")


async def test_a_judge_that_declines_or_cannot_give_the_json_fails_its_probe(
    client: httpx.AsyncClient, provider: respx.MockRouter
) -> None:
    route = provider.post(f"{URL}/chat/completions")
    route.mock(side_effect=refusing_judge)
    config = JudgeConfig(base_url=URL, model="j").call_config()
    result = await call(client, config, messages=probe_messages(), check=probe_check)
    assert not result.ok and "holds no grade" in result.detail
    route.mock(return_value=chat("PASS I guess, score five"))
    result = await call(client, config, messages=probe_messages(), check=probe_check)
    assert not result.ok and "not in a form we can use" in result.detail
