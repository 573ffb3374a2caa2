"""One `type` URI per kind of problem, so a client tells errors apart without parsing their English.

RFC 9457 lets `type` be a URI reference; ours are paths on the service itself (`/problems/not-found`), resolved
against the API's address like `instance`, and each one answers with what the kind means (app/routers/problems.py).
"""

from __future__ import annotations

from dataclasses import dataclass

PROBLEMS_PATH = "/problems"
UNKNOWN_TYPE = "about:blank"  # a status no kind below covers: RFC 9457's "nothing more than the status"


@dataclass(frozen=True)
class ProblemKind:
    slug: str
    status: int
    title: str
    meaning: str

    @property
    def type(self) -> str:
        return f"{PROBLEMS_PATH}/{self.slug}"


KINDS: tuple[ProblemKind, ...] = (
    ProblemKind(
        "bad-request", 400, "Bad request", "The request could not be read (e.g. JSON that is not UTF-8)."
    ),
    ProblemKind(
        "unauthorized",
        401,
        "Unauthorized",
        "No API key, or an unknown or revoked one: `Authorization: Bearer <key>`.",
    ),
    ProblemKind("forbidden", 403, "Forbidden", "The key's role does not allow this."),
    ProblemKind("not-found", 404, "Not found", "No such resource, or another team's (which looks absent)."),
    ProblemKind(
        "method-not-allowed", 405, "Method not allowed", "The path takes other methods; `Allow` lists them."
    ),
    ProblemKind("request-timeout", 408, "Request timeout", "The request body did not arrive in time."),
    ProblemKind(
        "conflict",
        409,
        "Conflict",
        "At odds with what is stored (a reused idempotency key, the last admin key).",
    ),
    ProblemKind("content-too-large", 413, "Content too large", "More than the service takes in one request."),
    ProblemKind(
        "unsupported-media-type",
        415,
        "Unsupported media type",
        "A body of a type this operation does not take.",
    ),
    ProblemKind(
        "invalid-request",
        422,
        "Invalid request",
        "A value the service refuses: `field` names it, `errors` lists all.",
    ),
    ProblemKind(
        "too-many-requests",
        429,
        "Too many requests",
        "Over a rate limit or a quota for now; see `Retry-After`.",
    ),
    ProblemKind(
        "service-unavailable",
        503,
        "Service unavailable",
        "A dependency (the database, Redis) is unreachable; nothing was lost; see `Retry-After`.",
    ),
)
BY_SLUG = {kind.slug: kind for kind in KINDS}
BY_STATUS = {kind.status: kind for kind in KINDS}
TYPES = [kind.type for kind in KINDS]


def problem_type(status: int) -> str:
    """The `type` of a problem answered with this status."""
    kind = BY_STATUS.get(status)
    return kind.type if kind else UNKNOWN_TYPE
