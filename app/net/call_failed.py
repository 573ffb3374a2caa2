"""How a failed call to an outside endpoint is classified: the targets raise it, and so do the shared limits
that gate those calls, so it lives below both."""

from __future__ import annotations

from typing import Literal

# simulator_error: the simulated user (not the target) spoiled the conversation; never counted against the target.
ErrorClass = Literal[
    "target_error", "timeout", "bad_response", "rate_limited", "cancelled", "our_error", "simulator_error"
]


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
