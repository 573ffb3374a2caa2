"""OpenAI chat-completions adapter: any compatible server (vLLM, llama.cpp, Ollama, Azure-style paths)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from app.targets.base import CallFailed, TargetConfig, TargetReply
from app.targets.retry import RetryPolicy, call_with_retries


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIChatTarget:
    def __init__(self, client: httpx.AsyncClient, config: TargetConfig, policy: RetryPolicy, max_reply_bytes: int):
        self._client = client
        self._config = config
        self._policy = policy
        self._max_bytes = max_reply_bytes
        base = config.base_url.rstrip("/")
        self._url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self._headers = {"content-type": "application/json", **config.headers}
        if config.api_key:
            self._headers["authorization"] = f"Bearer {config.api_key}"

    async def complete(self, messages: list[dict[str, str]]) -> TargetReply:
        body = {**self._config.params, "model": self._config.model, "messages": messages}
        return await call_with_retries(lambda: self._attempt(body), self._policy)

    async def _attempt(self, body: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        try:
            async with self._client.stream("POST", self._url, json=body, headers=self._headers,
                                           timeout=self._config.timeout_s) as response:
                raw = await _read_limited(response, self._max_bytes)
        except httpx.TimeoutException as exc:
            raise CallFailed("timeout", f"no answer within {self._config.timeout_s:g}s", retryable=True) from exc
        except httpx.TransportError as exc:
            raise CallFailed("target_error", f"connection failed: {type(exc).__name__}", retryable=True) from exc
        if response.status_code == 429:
            raise CallFailed("rate_limited", "429 Too Many Requests", retryable=True,
                             retry_after=_retry_after(response))
        if response.status_code >= 500:
            raise CallFailed("target_error", f"HTTP {response.status_code}", retryable=True,
                             retry_after=_retry_after(response))
        if response.status_code >= 300:
            raise CallFailed("target_error", f"HTTP {response.status_code}: {raw[:200]!r}", retryable=False)
        return _parse(raw)


async def _read_limited(response: httpx.Response, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise CallFailed("bad_response", f"response larger than {max_bytes} bytes", retryable=False)
        chunks.append(chunk)
    return b"".join(chunks)


def _parse(raw: bytes) -> tuple[str, dict[str, Any] | None]:
    try:
        data = json.loads(raw)
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise CallFailed("bad_response", "not a chat-completions JSON body", retryable=True) from exc
    if not isinstance(content, str):
        raise CallFailed("bad_response", "message content is not text", retryable=True)
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else None
    return content, usage
