"""Human labels for items, and how far the checks, the verdicts and the judge agree with them."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.benchmark.verdicts import GRADED
from app.errors import Invalid
from app.grading.checks import CHECKS
from app.grading.grades.likert import on_scale
from app.schemas import LabelIn, LabelsAccepted
from app.scoring.agreement import agreement
from app.store import items as item_store
from app.store import labels as label_store
from app.store.models import Evaluation, ItemLabel

SCALE = (1, 2, 3, 4, 5)


def save_labels(*, session: Session, evaluation: Evaluation, labels: list[LabelIn]) -> LabelsAccepted:
    """Validates every label against the evaluation's items, then replaces earlier labels of the same keys."""
    for i, label in enumerate(labels):
        unknown = sorted(set(label.checks) - set(CHECKS))
        if unknown:
            raise Invalid(f"{i}.checks.{unknown[0]}", f"{i}.checks: unknown check {unknown[0]!r}")
    keys = [label.key for label in labels]
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key in seen:
            raise Invalid(f"{i}.key", f"{i}.key: {key!r} is labelled twice")
        seen.add(key)
    found = item_store.existing_keys(session=session, evaluation_id=evaluation.id, keys=keys)
    for i, key in enumerate(keys):
        if key not in found:
            raise Invalid(f"{i}.key", f"{i}.key: no item {key!r} in evaluation {evaluation.id}")
    total = label_store.replace_labels(
        session=session,
        evaluation_id=evaluation.id,
        labels=(
            ItemLabel(
                team_id=evaluation.team_id,
                evaluation_id=evaluation.id,
                key=label.key,
                verdict=label.verdict,
                score=label.score,
                checks=dict(label.checks),
            )
            for label in labels
        ),
    )
    return LabelsAccepted(evaluation_id=evaluation.id, received=len(labels), labelled_items=total)


def calibration(*, session: Session, evaluation_id: str) -> dict[str, Any] | None:
    """Per check, for the verdict and for the judge's 1–5 score: kappa, agreement, confusion matrix (and MAE
    for the score). None while nothing is labelled."""
    rows = label_store.labelled_items(session=session, evaluation_id=evaluation_id)
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
        if label.verdict and verdict in GRADED:
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
        "verdict": agreement(*verdicts, labels=GRADED),
        "judge_score": judge,
    }
