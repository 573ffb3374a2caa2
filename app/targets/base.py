"""What every adapter takes and returns, and how a failed call is classified."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

# simulator_error: the simulated user (not the target) spoiled the conversation; never counted against the target.
ErrorClass = Literal[
    "target_error", "timeout", "bad_response", "rate_limited", "cancelled", "our_error", "simulator_error"
]


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


class CallFailed(Exception):
    """One attempt failed; `retryable` and `retry_after` tell the retry loop what to do. `status` and `body`
    (redacted) keep what the endpoint answered, so a probe can say in words why it was refused."""

    def __init__(
        self,
        error_class: ErrorClass,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        status: int | None = None,
        body: str | None = None,
    ):
        super().__init__(message)
        self.error_class: ErrorClass = error_class
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.body = body


class TargetAdapter(Protocol):
    async def complete(self, messages: list[dict[str, str]]) -> TargetReply: ...
