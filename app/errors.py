"""Errors in the service's own words, raised by services and the store: what went wrong and which field.

Each edge says them its own way: the HTTP edge as problem+json with a status, the CLI as one line and an exit
code. Keeping status codes out of here lets the store and the engine refuse a request without speaking HTTP.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A refusal naming the field at fault (None when no one field is); `extra` adds facts a client can use."""

    def __init__(self, field: str | None, detail: str, *, retry_after_s: int | None = None, **extra: Any):
        super().__init__(detail)
        self.field, self.detail, self.retry_after_s, self.extra = field, detail, retry_after_s, extra


class NotFound(DomainError):
    """No such thing, or not one the caller may see (another team's rows look absent, not forbidden)."""


class Gone(DomainError):
    """It existed, and what was asked for was deleted on purpose (transcripts erased, the report kept)."""


class Conflict(DomainError):
    """Well formed, but at odds with what is stored (a reused idempotency key, the last admin key)."""


class Invalid(DomainError):
    """A value the domain refuses (unknown suite, over a limit, a cursor we did not issue)."""


class Unreadable(Invalid):
    """Not even readable as a value of its kind, where the API has always answered that apart from Invalid."""


class TooLarge(DomainError):
    """More than the service takes in one request; splitting it would pass."""


class Stalled(DomainError):
    """The client stopped sending mid-request; a retry that keeps sending would pass."""


class TooMany(DomainError):
    """Over a rate or a quota for now; `retry_after_s` says when to try again."""


class Unavailable(DomainError):
    """A dependency the service needs is down; nothing was lost and `retry_after_s` says when to retry."""


def one_line(exc: DomainError) -> str:
    """The error as one line for a terminal or a log, with the field at fault."""
    return f"{exc.detail} [{exc.field}]" if exc.field else exc.detail
