"""Kappa against hand-computed values (Cohen 1960 and the quadratic-weighted form of Cohen 1968)."""

from __future__ import annotations

import numpy as np
import pytest

from app.scoring.agreement import agreement, confusion, kappa


def test_unweighted_kappa_by_hand() -> None:
    # po = 35/50 = 0.70; pe = (25·30 + 25·20)/50² = 0.50; kappa = (0.70 − 0.50)/(1 − 0.50) = 0.40
    assert kappa(np.array([[20, 5], [10, 15]])) == pytest.approx(0.40)


def test_quadratic_kappa_by_hand() -> None:
    # weights (i-j)^2/4; weighted disagreement observed 0.5/7, expected 14/49: 1 - (0.5/7)/(14/49) = 0.75
    matrix = np.array([[2, 1, 0], [0, 2, 1], [0, 0, 1]])
    assert kappa(matrix, "quadratic") == pytest.approx(0.75)


def test_quadratic_weights_forgive_near_misses_more_than_far_ones() -> None:
    near = confusion([1, 2, 3, 4, 5, 5], [2, 2, 3, 4, 4, 5], labels=(1, 2, 3, 4, 5))
    far = confusion([1, 2, 3, 4, 5, 5], [5, 2, 3, 4, 1, 5], labels=(1, 2, 3, 4, 5))
    assert kappa(near, "quadratic") > kappa(far, "quadratic")  # type: ignore[operator]
    assert np.trace(near) == np.trace(far)  # the same number of exact agreements


def test_perfect_and_chance_agreement() -> None:
    assert kappa(np.array([[3, 0], [0, 4]])) == 1.0
    assert kappa(np.array([[5, 5], [5, 5]])) == 0.0
    assert kappa(np.zeros((2, 2), dtype=int)) is None


def test_agreement_reports_confusion_rows_as_human_and_mae() -> None:
    out = agreement([1, 1, 5], [2, 1, 5], labels=(1, 2, 3, 4, 5), ordinal=True)
    assert out["n"] == 3 and out["confusion"][0][1] == 1 and out["confusion"][0][0] == 1
    assert out["mae"] == pytest.approx(1 / 3, abs=1e-4)
    assert out["kappa_kind"] == "quadratic-weighted" and out["agreement"] == pytest.approx(0.6667)
