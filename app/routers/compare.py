"""GET /v1/compare: two evaluations of the caller's team, metric by metric, with paired tests."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.deps import CurrentKey, LibraryDep, SessionDep
from app.documents.compare import Comparison
from app.http.openapi import problems
from app.services.compare import compare

router = APIRouter(tags=["evaluations"])


@router.get("/v1/compare", response_model=Comparison, responses=problems(404, 409, 410))
def compare_evaluations(
    key: CurrentKey,
    session: SessionDep,
    library: LibraryDep,
    a: Annotated[str, Query(min_length=1, max_length=40, description="The reference evaluation.")],
    b: Annotated[str, Query(min_length=1, max_length=40, description="The evaluation compared.")],
) -> dict[str, Any]:
    return compare(session=session, library=library, team_id=key.team_id, a_id=a, b_id=b)
