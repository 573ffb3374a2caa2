"""Intervals: Wilson equals SciPy's, the cluster bootstrap agrees with scipy.stats.bootstrap, reproducibly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from app.scoring.intervals import BOOTSTRAP_RESAMPLES, cluster_mean, wilson


@pytest.mark.parametrize(("k", "n"), [(0, 3), (5, 10), (70, 70), (1923, 3348), (1, 1)])
def test_wilson_matches_scipy_binomtest(k: int, n: int) -> None:
    ci = binomtest(k, n).proportion_ci(method="wilson")
    assert wilson(k, n) == (round(ci.low, 4), round(ci.high, 4))


def test_wilson_is_none_without_observations() -> None:
    assert wilson(0, 0) is None


def _ratio(s: np.ndarray, n: np.ndarray, axis: int = -1) -> np.ndarray:
    return s.sum(axis=axis) / n.sum(axis=axis)


def test_cluster_bootstrap_agrees_with_scipy_on_cluster_sums() -> None:
    rng = np.random.default_rng(7)
    clusters = [c for c in range(12) for _ in range(int(rng.integers(3, 9)))]
    shift = {c: rng.normal(0, 1) for c in range(12)}
    values = [3 + shift[c] + rng.normal(0, 0.3) for c in clusters]
    mean, ci = cluster_mean(values, clusters)
    sums = np.array([sum(v for v, c in zip(values, clusters, strict=True) if c == k) for k in range(12)])
    counts = np.array([clusters.count(k) for k in range(12)], dtype=float)
    ref = bootstrap(
        (sums, counts),
        _ratio,
        paired=True,
        vectorized=True,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(1),
    ).confidence_interval
    assert mean == pytest.approx(float(np.mean(values)), abs=1e-4)
    assert ci is not None
    # within Monte Carlo noise of each other
    assert ci[0] == pytest.approx(ref.low, abs=0.04) and ci[1] == pytest.approx(ref.high, abs=0.04)


def test_clustered_interval_is_wider_than_treating_items_as_independent() -> None:
    """Ten scenarios of 20 identical items each: the effective sample is ten, not two hundred."""
    clusters = [c for c in range(10) for _ in range(20)]
    values = [float(c % 2) for c in clusters]
    _, clustered = cluster_mean(values, clusters)
    _, naive = cluster_mean(values, list(range(len(values))))
    assert clustered is not None and naive is not None
    assert clustered[1] - clustered[0] > 2 * (naive[1] - naive[0])


def test_cluster_bootstrap_is_reproducible_and_needs_two_clusters() -> None:
    values, clusters = [1.0, 2.0, 4.0, 5.0, 3.0], ["a", "a", "b", "b", "c"]
    assert cluster_mean(values, clusters) == cluster_mean(values, clusters)
    assert cluster_mean([2.0, 4.0], ["a", "a"]) == (3.0, None)
    assert cluster_mean([], []) == (None, None)
