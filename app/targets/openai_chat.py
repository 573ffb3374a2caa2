"""OpenAI chat-completions adapter: any compatible server (vLLM, llama.cpp, Ollama, Azure-style paths)."""

from __future__ import annotations

from typing import Any

import httpx

from app.targets.base import TargetConfig
from app.targets.http import HttpJsonTarget
from app.targets.limits import TargetGate
from app.targets.retry import RetryPolicy


class OpenAIChatTarget(HttpJsonTarget):
    def __init__(
        self,
        client: httpx.AsyncClient,
        config: TargetConfig,
        policy: RetryPolicy,
        max_reply_bytes: int,
        gate: TargetGate | None = None,
    ):
        super().__init__(client, config, policy, max_reply_bytes, gate)
        base = config.base_url.rstrip("/")
        # Azure-style URLs carry the deployment and ?api-version=… already; only a bare base gets the path.
        self.url = base if "/chat/completions" in base else base + "/chat/completions"
        self.headers = {"content-type": "application/json"}
        if config.api_key:
            self.headers["authorization"] = f"Bearer {config.api_key}"
        self.headers.update(config.headers)

    def body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        body: dict[str, Any] = {**self._config.params, "model": self._config.model, "messages": messages}
        if self._config.max_tokens is not None:
            body.setdefault("max_tokens", self._config.max_tokens)
        return body

    def parse(self, data: Any) -> tuple[str, dict[str, Any] | None]:
        content = data["choices"][0]["message"]["content"]
        usage = data.get("usage")
        return content, usage if isinstance(usage, dict) else None
