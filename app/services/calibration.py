"""Human labels for items, and how far the checks, the verdicts and the judge agree with them."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, delete, select

from app.grading.checks import CHECKS
from app.grading.likert import on_scale
from app.problems import Problem
from app.schemas import LabelIn, LabelsAccepted
from app.scoring.agreement import agreement
from app.store import items as item_store
from app.store.models import Evaluation, EvaluationItem, ItemLabel

VERDICTS = ("PASS", "PARTIAL", "FAIL")
SCALE = (1, 2, 3, 4, 5)


def save_labels(*, session: Session, evaluation: Evaluation, labels: list[LabelIn]) -> LabelsAccepted:
    """Validates every label against the evaluation's items, then replaces earlier labels of the same keys."""
    for i, label in enumerate(labels):
        unknown = sorted(set(label.checks) - set(CHECKS))
        if unknown:
            raise Problem(
                422,
                "Invalid request",
                f"{i}.checks: unknown check {unknown[0]!r}",
                field=f"{i}.checks.{unknown[0]}",
            )
    keys = [label.key for label in labels]
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key in seen:
            raise Problem(422, "Invalid request", f"{i}.key: {key!r} is labelled twice", field=f"{i}.key")
        seen.add(key)
    found = item_store.existing_keys(session=session, evaluation_id=evaluation.id, keys=keys)
    for i, key in enumerate(keys):
        if key not in found:
            raise Problem(
                422,
                "Invalid request",
                f"{i}.key: no item {key!r} in evaluation {evaluation.id}",
                field=f"{i}.key",
            )
    for start in range(0, len(keys), 900):
        session.execute(
            delete(ItemLabel).where(
                col(ItemLabel.evaluation_id) == evaluation.id,
                col(ItemLabel.key).in_(keys[start : start + 900]),
            )
        )
    session.add_all(
        ItemLabel(
            team_id=evaluation.team_id,
            evaluation_id=evaluation.id,
            key=label.key,
            verdict=label.verdict,
            score=label.score,
            checks=dict(label.checks),
        )
        for label in labels
    )
    session.flush()
    total = len(session.exec(select(ItemLabel.id).where(ItemLabel.evaluation_id == evaluation.id)).all())
    return LabelsAccepted(evaluation_id=evaluation.id, received=len(labels), labelled_items=total)


def calibration(*, session: Session, evaluation_id: str) -> dict[str, Any] | None:
    """Per check, for the verdict and for the judge's 1–5 score: kappa, agreement, confusion matrix (and MAE
    for the score). None while nothing is labelled."""
    stmt = (
        select(ItemLabel, EvaluationItem.verdict, EvaluationItem.score, EvaluationItem.checks)
        .join(
            EvaluationItem,
            (col(EvaluationItem.evaluation_id) == col(ItemLabel.evaluation_id))
            & (col(EvaluationItem.key) == col(ItemLabel.key)),
        )
        .where(ItemLabel.evaluation_id == evaluation_id)
    )
    rows = session.exec(stmt).all()
    if not rows:
        return None
    check_pairs: dict[str, tuple[list[bool], list[bool]]] = {}
    verdicts: tuple[list[str], list[str]] = ([], [])
    scores: tuple[list[int], list[int]] = ([], [])
    raw_errors: list[float] = []
    for label, verdict, score, checks in rows:
        for name, human in label.checks.items():
            if isinstance((checks or {}).get(name), bool):
                pair = check_pairs.setdefault(name, ([], []))
                pair[0].append(human)
                pair[1].append(checks[name])
        if label.verdict and verdict in VERDICTS:
            verdicts[0].append(label.verdict)
            verdicts[1].append(verdict)
        if label.score is not None and score is not None:
            scores[0].append(label.score)
            scores[1].append(on_scale(score))
            raw_errors.append(abs(label.score - score))
    judge = agreement(*scores, labels=SCALE, ordinal=True)
    judge["mae"] = round(sum(raw_errors) / len(raw_errors), 4) if raw_errors else None
    return {
        "n_labelled": len(rows),
        "checks": {
            name: agreement(*pair, labels=(True, False)) for name, pair in sorted(check_pairs.items())
        },
        "verdict": agreement(*verdicts, labels=VERDICTS),
        "judge_score": judge,
    }
