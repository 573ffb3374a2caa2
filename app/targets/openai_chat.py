"""OpenAI chat-completions adapter: any compatible server (vLLM, llama.cpp, Ollama, Azure-style paths)."""

from __future__ import annotations

from typing import Any

from app.targets.base import TargetConfig
from app.targets.http import HttpTarget


class OpenAIChatTarget(HttpTarget):
    def endpoint(self, config: TargetConfig) -> tuple[str, dict[str, str]]:
        base = config.base_url.rstrip("/")
        # Azure-style URLs carry the deployment and ?api-version=… already; only a bare base gets the path.
        url = base if "/chat/completions" in base else base + "/chat/completions"
        return url, {"authorization": f"Bearer {config.api_key}"} if config.api_key else {}

    def body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        body: dict[str, Any] = {**self._config.params, "model": self._config.model, "messages": messages}
        if self._config.max_tokens is not None:
            body.setdefault("max_tokens", self._config.max_tokens)
        return body

    def parse(self, data: Any) -> tuple[str, dict[str, Any] | None]:
        content = data["choices"][0]["message"]["content"]
        usage = data.get("usage")
        return content, usage if isinstance(usage, dict) else None
