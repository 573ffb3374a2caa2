"""Public read endpoints: leaderboard, benchmark catalogue, health."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import text

from app.deps import LibraryDep, QueueDep, SessionDep
from app.problems import Problem
from app.schemas import Leaderboard
from app.services.catalogue import catalogue
from app.services.results import leaderboard

router = APIRouter(tags=["public"])


@router.get("/v1/leaderboard", response_model=Leaderboard)
def get_leaderboard(session: SessionDep, library: LibraryDep, benchmark_version: str | None = None) -> Leaderboard:
    return leaderboard(session=session, library=library, benchmark_version=benchmark_version)


@router.get("/v1/benchmark")
def get_benchmark(library: LibraryDep) -> dict[str, Any]:
    return catalogue(library)


@router.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(session: SessionDep, queue: QueueDep) -> dict[str, str]:
    try:
        session.execute(text("SELECT 1"))
    except Exception as exc:
        raise Problem(503, "Not ready", f"database: {type(exc).__name__}", field="database") from exc
    try:
        await queue.ping()
    except Exception as exc:
        raise Problem(503, "Not ready", f"queue: {type(exc).__name__}", field="queue") from exc
    return {"status": "ready", "database": "ok", "queue": "ok"}
