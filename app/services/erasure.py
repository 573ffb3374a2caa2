"""Deleting an evaluation or a grade batch on request: its people's words removed from the database, not hidden.

The edge drops the queue's waiting jobs after the commit (`job_ids`); a job already running finds its subject
gone (or erased) and stops, writing nothing more.
"""

from __future__ import annotations

from typing import Any

import structlog
from sqlmodel import Session

from app.benchmark.loader import Library
from app.config import Settings
from app.errors import Conflict, Gone, NotFound
from app.queue.base import grade_batch_job_id, shard_job_id
from app.services import audit
from app.services.keys import is_platform_admin
from app.store import db, erase
from app.store import evaluations as ev_store
from app.store import grade_batches as batch_store
from app.store.models import ApiKey, Evaluation, GradeBatch

log = structlog.get_logger("helmbench.erasure")


def _scope(session: Session, key: ApiKey) -> str | None:
    """The team whose things the key may delete: its own, or any (None) for a platform admin."""
    return None if is_platform_admin(session=session, key=key) else key.team_id


def _kept_report(session: Session, library: Library, evaluation: Evaluation) -> dict[str, Any] | None:
    """The report to keep: the stored one, else (a run not finished) one computed now from what was written."""
    if evaluation.summary is not None or evaluation.benchmark_version != library.version:
        return evaluation.summary
    from app.scoring.report import compute_report  # NumPy, SciPy: imported only by the few that need it

    return compute_report(
        session=session, evaluation_id=evaluation.id, library=library, suite=evaluation.suite
    )


def delete_evaluation(
    *, session: Session, library: Library, key: ApiKey, evaluation_id: str, keep_report: bool
) -> list[str]:
    """Erase the evaluation (cancelling it if it runs) and log the delete; returns the queue jobs to drop."""
    found = ev_store.get_evaluation(
        session=session, team_id=_scope(session, key), evaluation_id=evaluation_id
    )
    if found is None:
        raise NotFound("evaluation_id", f"no evaluation {evaluation_id!r}")
    report = _kept_report(session, library, found) if keep_report else None
    evaluation = erase.lock_evaluation(session=session, evaluation_id=evaluation_id)
    if evaluation is None:  # deleted meanwhile by another request
        raise NotFound("evaluation_id", f"no evaluation {evaluation_id!r}")
    if keep_report and evaluation.summary is None and report is not None:
        evaluation.summary = report
        session.add(evaluation)
        session.flush()
    erase.erase_evaluation(session=session, evaluation=evaluation, keep_report=keep_report)
    shards = evaluation.shards
    action = audit.DELETE_KEEP_REPORT if keep_report else audit.DELETE
    audit.note(session=session, key=key, action=action, object_type="evaluation", object_id=evaluation_id)
    db.checkpoint(session.get_bind())  # type: ignore[arg-type]
    log.info("evaluation deleted", evaluation_id=evaluation_id, key_id=key.id, keep_report=keep_report)
    return [shard_job_id(evaluation_id, shard) for shard in range(shards)]


def delete_batch(
    *, session: Session, settings: Settings, key: ApiKey, batch_id: str, keep_report: bool
) -> list[str]:
    """Erase the grade batch's lines (and the batch, unless keep_report) and log the delete; returns the queue
    jobs to drop. A batch still uploading is refused: its uploader stops the upload to discard it."""
    batch = batch_store.lock_batch(session=session, team_id=_scope(session, key), batch_id=batch_id)
    if batch is None:
        raise NotFound("batch_id", f"no grade batch {batch_id!r}")
    if batch.status == "uploading":
        raise Conflict("status", "the batch is still uploading; stop the upload to discard it")
    shards = batch_store.shard_count(batch.last_line, settings.grade_batch_shard_lines)
    erase.erase_batch(session=session, batch=batch, keep_report=keep_report)
    action = audit.DELETE_KEEP_REPORT if keep_report else audit.DELETE
    audit.note(session=session, key=key, action=action, object_type="grade_batch", object_id=batch_id)
    db.checkpoint(session.get_bind())  # type: ignore[arg-type]
    log.info("grade batch deleted", batch_id=batch_id, key_id=key.id, keep_report=keep_report)
    return [grade_batch_job_id(batch_id, shard) for shard in range(shards)]


def check_transcripts_kept(subject: Evaluation | GradeBatch) -> None:
    """Results of a subject whose transcripts were erased are gone on purpose (410), not missing."""
    if subject.transcripts_deleted_at is not None:
        raise Gone("transcripts", "its transcripts were deleted; only the report was kept")
