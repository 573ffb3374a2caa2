"""Evaluation admission: its size and the team's concurrent evaluations, so no team crowds out the rest.

The per-team evaluation limit is exact at any scale: it counts rows."""

from __future__ import annotations

from sqlmodel import Session

from app.config import Settings
from app.errors import Invalid, TooMany
from app.store import evaluations as ev_store


def check_matrix_size(total: int, repeats: int, settings: Settings) -> None:
    """Refuse an evaluation whose items (suite size x repeats) exceed max_matrix_items, naming `repeats`."""
    if total > settings.max_matrix_items:
        per_repeat = max(1, total // max(1, repeats))
        most = settings.max_matrix_items // per_repeat
        detail = (
            f"repeats: {repeats} repeats make {total} items, over the limit of "
            f"{settings.max_matrix_items}; at most {most} repeats of this suite"
        )
        raise Invalid("repeats", detail)


def check_active_evaluations(*, session: Session, team_id: str, settings: Settings) -> None:
    """Refuse a new evaluation while the team already has max_active_evaluations queued or running."""
    active = ev_store.count_active(session=session, team_id=team_id)
    if active >= settings.max_active_evaluations:
        detail = (
            f"the team already has {active} evaluations queued or running "
            f"(limit {settings.max_active_evaluations}); wait for one to finish or cancel one"
        )
        raise TooMany("status", detail, retry_after_s=30)
