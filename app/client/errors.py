"""The one exception the client raises: the API's problem+json, or why the server could not be reached."""

from __future__ import annotations

from typing import Any

import httpx


class ApiError(Exception):
    """A refused request (status, type, title, detail and the field at fault, as RFC 9457 gives them), or a
    transport failure (status None), so a caller handles every failure of a call in one place."""

    def __init__(
        self,
        status: int | None,
        title: str,
        detail: str,
        *,
        type: str = "about:blank",
        field: str | None = None,
        problem: dict[str, Any] | None = None,
    ) -> None:
        self.status, self.title, self.detail, self.type, self.field = status, title, detail, type, field
        self.problem = problem or {}
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.status is None:
            return self.detail
        field = f" [{self.field}]" if self.field else ""
        return f"{self.status} {self.title}: {self.detail}{field}"


def raise_for_problem(response: httpx.Response) -> None:
    """Raise ApiError from a failed response's problem+json (or its bare status when the body is not one)."""
    if response.is_success:
        return
    try:
        problem = response.json()
    except ValueError:
        problem = {}
    if not isinstance(problem, dict):
        problem = {}
    raise ApiError(
        response.status_code,
        str(problem.get("title") or "error"),
        str(problem.get("detail") or response.reason_phrase),
        type=str(problem.get("type") or "about:blank"),
        field=problem.get("field"),
        problem=problem,
    )


def unreachable(base_url: str, exc: httpx.HTTPError) -> ApiError:
    """The server did not answer: no status, and a detail that names where it was looked for."""
    return ApiError(None, "Unreachable", f"cannot reach {base_url}: {exc}", type="about:blank")
