"""What the public sees of an opted-in evaluation: results, and transcripts only if the owner shares them."""

from __future__ import annotations

from sqlmodel import Session

from app.errors import NotFound
from app.schemas import ResultsPage
from app.services.results import results_page
from app.store import evaluations as ev_store
from app.store.models import Evaluation


def public_evaluation_or_404(*, session: Session, evaluation_id: str) -> Evaluation:
    """A finished evaluation its team published; anything else is not found, whoever asks."""
    evaluation = ev_store.get_evaluation(session=session, team_id=None, evaluation_id=evaluation_id)
    if evaluation is None or evaluation.visibility != "public" or evaluation.status != "succeeded":
        raise NotFound("evaluation_id", f"no public evaluation {evaluation_id!r}")
    return evaluation


def public_results(*, session: Session, evaluation_id: str, cursor: str | None, limit: int) -> ResultsPage:
    """Verdicts and scores per item; messages, replies and errors only when share_transcripts is set."""
    evaluation = public_evaluation_or_404(session=session, evaluation_id=evaluation_id)
    page = results_page(session=session, evaluation=evaluation, cursor=cursor, limit=limit)
    if evaluation.share_transcripts:
        return page
    items = [item.model_copy(update={"messages": [], "reply": None, "error": None}) for item in page.items]
    return ResultsPage(items=items, next_cursor=page.next_cursor)
