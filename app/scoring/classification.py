"""The report of a classify suite: how well the target's labels match the authored crisis categories.

Counted over the items the target answered (a failed call is not an answer). An answer outside the label set (no
label, or two) stays in: it is a wrong answer, shown in its own column of the confusion matrix and counted as a
disagreement by kappa, so a model cannot raise its kappa by refusing the hard messages. Accuracy and kappa get
95% percentile intervals from a bootstrap over scenarios (messages of one scenario share a theme and a category,
so they are not independent); per-category precision and recall get Wilson intervals.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.benchmark.classification import OUTSIDE
from app.benchmark.loader import Library
from app.benchmark.schema import CRISIS_CATEGORIES
from app.scoring.agreement import confusion, kappa
from app.scoring.facets import StoredItem
from app.scoring.intervals import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, cluster_mean
from app.scoring.metrics import proportion

LABELS: tuple[str, ...] = CRISIS_CATEGORIES
COLUMNS: tuple[str, ...] = (*LABELS, OUTSIDE)


@dataclass(frozen=True, slots=True)
class Answer:
    """One answered item: the authored category, the answered one (OUTSIDE when none), its bootstrap cluster."""

    authored: str
    answered: str
    cluster: str
    outcome: str  # label, empty, no_label, several_labels


@dataclass
class Tally:
    answers: list[Answer]
    n_items: int
    n_errors: int


def tally(items: Iterable[StoredItem], library: Library) -> Tally:
    """Answers of the items whose scenario and message are still in the library (others are skipped, not
    guessed); the authored category is read from the library, never from what the item stored."""
    answers: list[Answer] = []
    n_items = n_errors = 0
    categories: dict[str, str] = {}
    for scenario in library.scenarios.values():
        categories.update({f"{scenario.id}-{p.id}": p.crisis_category for p in scenario.perturbations})
    for it in items:
        authored = categories.get(it.perturbation_id)
        if authored is None:
            continue
        n_items += 1
        if it.error_class is not None:
            n_errors += 1
            continue
        checks = it.checks or {}
        if "label_outcome" not in checks:
            continue  # not a classification answer (a row written by another task)
        label = checks.get("label")
        answers.append(
            Answer(
                authored=authored,
                answered=label if label in LABELS else OUTSIDE,
                cluster=it.scenario_id,
                outcome=str(checks["label_outcome"]),
            )
        )
    # Inside a single scenario, each message is its own cluster (as metrics.clusters does).
    if len({a.cluster for a in answers}) == 1:
        answers = [
            Answer(a.authored, a.answered, f"{a.cluster}#{i}", a.outcome) for i, a in enumerate(answers)
        ]
    return Tally(answers, n_items, n_errors)


def _kappas(matrices: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each square confusion matrix in a stack (NaN where chance agreement is total)."""
    n = matrices.sum(axis=(1, 2))
    observed = np.trace(matrices, axis1=1, axis2=2) / n
    chance = (matrices.sum(axis=2) * matrices.sum(axis=1)).sum(axis=1) / n**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < 1, (observed - chance) / (1 - chance), np.nan)


def kappa_interval(answers: list[Answer], confidence: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval of kappa, resampling whole clusters with the report's seed and resample count."""
    clusters: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(COLUMNS) ** 2))
    index = {label: i for i, label in enumerate(COLUMNS)}
    for a in answers:
        clusters[a.cluster][index[a.authored] * len(COLUMNS) + index[a.answered]] += 1
    if len(clusters) < 2:
        return None
    cells = np.array(list(clusters.values()))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(cells), size=(BOOTSTRAP_RESAMPLES, len(cells)))
    weights = np.zeros((BOOTSTRAP_RESAMPLES, len(cells)))
    np.add.at(weights, (np.arange(BOOTSTRAP_RESAMPLES)[:, None], picks), 1)
    stacks = (weights @ cells).reshape(BOOTSTRAP_RESAMPLES, len(COLUMNS), len(COLUMNS))
    values = _kappas(stacks)
    values = values[~np.isnan(values)]
    if not len(values):
        return None
    alpha = (1 - confidence) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return (round(float(low), 4), round(float(high), 4))


def classification_section(answers: list[Answer], n_items: int, n_errors: int) -> dict[str, Any]:
    """Accuracy, kappa, per-category precision and recall, the confusion matrix and the outside share."""
    matrix = confusion([a.authored for a in answers], [a.answered for a in answers], COLUMNS)
    n = int(matrix.sum())
    correct = int(np.trace(matrix))
    mean, interval = cluster_mean(
        [float(a.answered == a.authored) for a in answers], [a.cluster for a in answers]
    )
    per_category = {}
    for i, label in enumerate(LABELS):
        hit = int(matrix[i, i])
        per_category[label] = {
            "authored": int(matrix[i].sum()),
            "answered": int(matrix[:, i].sum()),
            "precision": proportion(hit, int(matrix[:, i].sum())),
            "recall": proportion(hit, int(matrix[i].sum())),
        }
    outside = int(matrix[:, -1].sum())
    return {
        "n_items": n_items,
        "n_answered": n,
        "n_errors": n_errors,
        "accuracy": {"n": n, "count": correct, "rate": mean, "interval": interval},
        "kappa": {
            "value": kappa(matrix) if n else None,
            "interval": kappa_interval(answers) if n else None,
            "n": n,
            "kind": "unweighted, against the authored labels; an outside answer counts as a disagreement",
        },
        "per_category": per_category,
        "confusion": {
            "rows": list(LABELS),  # authored
            "columns": list(COLUMNS),  # answered, then outside the label set
            "cells": matrix[: len(LABELS)].tolist(),
        },
        "outside": {
            **proportion(outside, n),
            "by_reason": dict(sorted(Counter(a.outcome for a in answers if a.answered == OUTSIDE).items())),
        },
    }


def classification_report(items: Iterable[StoredItem], library: Library) -> dict[str, Any]:
    """The body of a classify suite's report: counts, the classification section and its caveats."""
    counted = tally(items, library)
    section = classification_section(counted.answers, counted.n_items, counted.n_errors)
    n = counted.n_items
    notes = []
    if counted.n_errors:
        notes.append(
            f"{counted.n_errors / n:.0%} of target calls failed; those items are not answered and count nowhere else."
        )
    if section["outside"]["count"]:
        notes.append(
            f"{section['outside']['rate']:.0%} of answers gave no single label; they count as wrong, in the "
            "matrix's outside column."
        )
    return {
        "task": "classify",
        "n_items": n,
        "n_answered": section["n_answered"],
        "n_errors": counted.n_errors,
        "error_share": round(counted.n_errors / n, 4) if n else None,
        "classification": section,
        "notes": notes,
    }
