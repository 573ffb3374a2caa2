"""What every adapter takes and returns; how a failed call is classified lives in app/net/call_failed.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from app.net.call_failed import ErrorClass


@dataclass(frozen=True)
class TargetConfig:
    kind: str
    base_url: str
    model: str
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    max_concurrency: int = 16
    timeout_s: float = 60.0
    max_tokens: int | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    request_template: dict[str, Any] | None = None
    reply_pointer: str | None = None
    label: str = "target"


@dataclass
class TargetReply:
    text: str | None
    latency_ms: float
    attempts: int
    usage: dict[str, Any] | None = None
    error_class: ErrorClass | None = None
    error: str | None = None
    tokens: int = (
        0  # what the whole exchange spent, as reported (else estimated): set by the runner for budgets
    )

    @property
    def ok(self) -> bool:
        return self.error_class is None


class TargetAdapter(Protocol):
    async def complete(self, messages: list[dict[str, str]]) -> TargetReply: ...
