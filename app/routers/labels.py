"""POST /v1/evaluations/{id}/labels: human labels that calibrate the checks and the judge in the report."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body

from app.deps import CurrentKey, SessionDep
from app.errors import NotFound
from app.schemas import LabelIn, LabelsAccepted
from app.services.calibration import save_labels
from app.store import evaluations as ev_store

router = APIRouter(prefix="/v1/evaluations", tags=["evaluations"])


@router.post("/{evaluation_id}/labels", response_model=LabelsAccepted)
def add_labels(
    evaluation_id: str,
    key: CurrentKey,
    session: SessionDep,
    labels: Annotated[list[LabelIn], Body(min_length=1, max_length=10_000)],
) -> LabelsAccepted:
    evaluation = ev_store.get_evaluation(session=session, team_id=key.team_id, evaluation_id=evaluation_id)
    if evaluation is None:
        raise NotFound("evaluation_id", f"no evaluation {evaluation_id!r}")
    accepted = save_labels(session=session, evaluation=evaluation, labels=labels)
    session.commit()
    return accepted
