"""Grader-versus-human agreement: Cohen's kappa (quadratic-weighted when ordinal), confusion matrix, MAE.

scikit-learn is not a dependency and SciPy has no kappa, so kappa is computed here from the confusion matrix
(Cohen 1960; Cohen 1968 for weights) and tested against hand-computed values.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np


def confusion(
    human: Sequence[Hashable], grader: Sequence[Hashable], labels: Sequence[Hashable]
) -> np.ndarray:
    """Rows are the human label, columns the grader's, in the order of `labels`."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=int)
    for h, g in zip(human, grader, strict=True):
        matrix[index[h], index[g]] += 1
    return matrix


def kappa(matrix: np.ndarray, weights: str | None = None) -> float | None:
    """Cohen's kappa from a confusion matrix; weights=None (nominal) or "quadratic" (ordinal)."""
    total = matrix.sum()
    if total == 0:
        return None
    k = matrix.shape[0]
    i, j = np.indices((k, k))
    disagreement = (
        ((i - j) ** 2 / (k - 1) ** 2) if weights == "quadratic" and k > 1 else (i != j).astype(float)
    )
    observed = matrix / total
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    chance = float((disagreement * expected).sum())
    if chance == 0:
        return 1.0 if float((disagreement * observed).sum()) == 0 else None
    return round(1.0 - float((disagreement * observed).sum()) / chance, 4)


def agreement(
    human: Sequence[Hashable], grader: Sequence[Hashable], labels: Sequence[Hashable], ordinal: bool = False
) -> dict[str, Any]:
    """n, raw agreement, kappa (quadratic-weighted when ordinal), MAE when ordinal, the confusion matrix."""
    matrix = confusion(human, grader, labels)
    n = int(matrix.sum())
    out: dict[str, Any] = {
        "n": n,
        "agreement": round(float(np.trace(matrix)) / n, 4) if n else None,
        "kappa": kappa(matrix, "quadratic" if ordinal else None),
        "kappa_kind": "quadratic-weighted" if ordinal else "unweighted",
        "labels": [str(x) for x in labels],
        "confusion": matrix.tolist(),
    }
    if ordinal:
        diffs = [abs(float(h) - float(g)) for h, g in zip(human, grader, strict=True)]  # type: ignore[arg-type]
        out["mae"] = round(sum(diffs) / n, 4) if n else None
    return out
