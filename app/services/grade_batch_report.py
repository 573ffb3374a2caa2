"""A grade batch's report as the API serves it: the stored report once the batch completed, else the metrics
over the lines graded so far."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.benchmark.loader import Library
from app.errors import Gone
from app.scoring.grade_batch import compute_summary
from app.services.results import transcripts_note
from app.store.models import GradeBatch


def batch_report(*, session: Session, batch: GradeBatch, library: Library) -> dict[str, Any]:
    """A completed batch serves the report stored when it completed; until then it is computed from the lines
    graded so far (it grows as they are graded)."""
    if batch.summary is None and batch.transcripts_deleted_at is not None:
        raise Gone("batch_id", "its lines were deleted before a report was made")
    body = batch.summary or compute_summary(session.get_bind(), batch.id)  # type: ignore[arg-type]
    return {
        "batch_id": batch.id,
        "status": batch.status,
        "benchmark_version": library.version,
        "bad_lines": batch.bad,
        **body,
        **transcripts_note(batch),
    }
