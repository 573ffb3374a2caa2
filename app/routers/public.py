"""Public read endpoints: leaderboard, benchmark catalogue, health."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import text

from app.deps import LibraryDep, QueueDep, SessionDep
from app.problems import Problem
from app.schemas import Leaderboard, ResultsPage
from app.services.catalogue import catalogue
from app.services.results import leaderboard
from app.services.sharing import public_results

router = APIRouter(tags=["public"])


@router.get("/v1/leaderboard", response_model=Leaderboard)
def get_leaderboard(session: SessionDep, library: LibraryDep, benchmark_version: str | None = None) -> Leaderboard:
    return leaderboard(session=session, library=library, benchmark_version=benchmark_version)


@router.get("/v1/leaderboard/{evaluation_id}/results", response_model=ResultsPage)
def get_public_results(evaluation_id: str, session: SessionDep, cursor: str | None = None,
                       limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> ResultsPage:
    """A published evaluation's items; transcripts only if its owner set share_transcripts."""
    return public_results(session=session, evaluation_id=evaluation_id, cursor=cursor, limit=limit)


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
