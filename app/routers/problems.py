"""GET /problems and /problems/{slug}: what each problem `type` means, where its URI leads (public)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.http.problem_types import BY_SLUG, KINDS, PROBLEMS_PATH, ProblemKind
from app.http.problems import Problem

router = APIRouter(prefix=PROBLEMS_PATH, tags=["public"])


def _described(kind: ProblemKind) -> dict[str, Any]:
    return {"type": kind.type, "title": kind.title, "status": kind.status, "meaning": kind.meaning}


@router.get("", include_in_schema=False)
def list_problem_types() -> list[dict[str, Any]]:
    """Every kind of problem the API answers with."""
    return [_described(kind) for kind in KINDS]


@router.get("/{slug}", include_in_schema=False)
def get_problem_type(slug: str) -> dict[str, Any]:
    """One kind of problem: its status, title and meaning."""
    kind = BY_SLUG.get(slug)
    if kind is None:
        raise Problem(404, "Not found", f"no problem type {slug!r}", field="slug")
    return _described(kind)
