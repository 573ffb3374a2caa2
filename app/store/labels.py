"""Human labels for evaluation items: a new upload for a key replaces the earlier one."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlmodel import Session, col, delete, func, select

from app.store.models import EvaluationItem, ItemLabel

CHUNK = 900  # keys per statement, under SQLite's bound-parameter limit


def replace_labels(*, session: Session, evaluation_id: str, labels: Iterable[ItemLabel]) -> int:
    """Drops the evaluation's earlier labels of the same keys, adds these; returns how many items are labelled."""
    fresh = list(labels)
    keys = [label.key for label in fresh]
    for start in range(0, len(keys), CHUNK):
        session.execute(
            delete(ItemLabel).where(
                col(ItemLabel.evaluation_id) == evaluation_id,
                col(ItemLabel.key).in_(keys[start : start + CHUNK]),
            )
        )
    session.add_all(fresh)
    session.flush()
    stmt = select(func.count()).select_from(ItemLabel).where(ItemLabel.evaluation_id == evaluation_id)
    return int(session.exec(stmt).one())


def labelled_items(*, session: Session, evaluation_id: str) -> list[tuple[ItemLabel, Any, Any, Any]]:
    """Each label with its item's verdict, score and checks."""
    stmt = (
        select(ItemLabel, EvaluationItem.verdict, EvaluationItem.score, EvaluationItem.checks)
        .join(
            EvaluationItem,
            (col(EvaluationItem.evaluation_id) == col(ItemLabel.evaluation_id))
            & (col(EvaluationItem.key) == col(ItemLabel.key)),
        )
        .where(ItemLabel.evaluation_id == evaluation_id)
    )
    return list(session.exec(stmt).all())
