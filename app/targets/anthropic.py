"""Anthropic Messages adapter: the system prompt goes in `system`, the reply is the joined text blocks."""

from __future__ import annotations

from typing import Any

from app.targets.base import TargetConfig
from app.targets.http import HttpTarget

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 1024  # the Messages API requires max_tokens; this fits any reply a scenario expects


class AnthropicMessagesTarget(HttpTarget):
    def endpoint(self, config: TargetConfig) -> tuple[str, dict[str, str]]:
        base = config.base_url.rstrip("/")
        auth = {"anthropic-version": API_VERSION}
        if config.api_key:
            auth["x-api-key"] = config.api_key
        return (base if base.endswith("/messages") else base + "/messages"), auth

    def body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [{"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"]
        body: dict[str, Any] = {**self._config.params, "model": self._config.model, "messages": turns}
        body.setdefault("max_tokens", self._config.max_tokens or DEFAULT_MAX_TOKENS)
        if system:
            body["system"] = system
        return body

    def parse(self, data: Any) -> tuple[str, dict[str, Any] | None]:
        blocks = data["content"]
        if not isinstance(blocks, list):
            raise TypeError("content is not a list of blocks")
        texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        if not texts:
            raise KeyError("no text block in content")
        usage = data.get("usage")
        return "".join(texts), usage if isinstance(usage, dict) else None
