"""Did the headline score itself change between two runs of the same items? A paired test on the score.

The headline is not a rate: behaviours are weighted, items weighted by severity, and the safety floors multiply
it down. McNemar on pass/fail would test another figure, in another unit, than the one a gate or an alert shows
(a run can pass as many items and still score far less, after a floor breach). So the headline's own difference
is tested, paired by item key like every other watched metric (both runs answer the same fixed items; the
question is whether the system's answers changed, not how it would do on other scenarios):

- p-value: a paired permutation test. Under "no change", which run gave which of an item's two answers is
  arbitrary, so each item's two sides are swapped at random (2,000 times) and the headline difference
  recomputed; p = (1 + swaps whose difference is at least as large in size) / (1 + swaps).
- interval: a paired percentile bootstrap of the difference (items resampled together in both runs).

Items with identical contributions on both sides are pooled and only changed items are swapped: 0.66 s of CPU
for 14,000 paired items, 1.1 s for 60,000.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from app.benchmark.verdicts import CREDIT
from app.scoring.facets import Facet
from app.scoring.headline import combine, contributions, counts_for_restraint, item_verdict
from app.scoring.intervals import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from app.scoring.vocabulary import RESTRAINT

SWAPS = 2000
TEST_NAME = "permutation"


@dataclass(frozen=True)
class HeadlineChange:
    """The headline of each run over the paired items, the test of their difference and its interval."""

    baseline_value: float
    value: float
    p_value: float
    interval: tuple[float, float] | None
    n_pairs: int
    flipped: list[str]  # item keys that got worse: a lower verdict, or a new false alarm


def _worse(a: Facet, b: Facet) -> bool:
    va, vb = item_verdict(a), item_verdict(b)
    if va is not None and vb is not None and CREDIT[vb] < CREDIT[va]:
        return True
    return counts_for_restraint(a) and counts_for_restraint(b) and not a.alarm and bool(b.alarm)


class _Headlines:
    """Headlines from per-component sums, one row each: columns are (credit, weight) of each component in turn."""

    def __init__(self, components: list[str], weights: Mapping[str, float]) -> None:
        self.components = components
        self.weights = weights

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        """One headline per row; a component with no weight in a row is left out of that row's headline, as the
        report leaves out a behaviour nothing was scored for (NaN only where nothing was)."""
        out = np.full(len(sums), np.nan)
        patterns, which = np.unique(sums[:, 1::2] > 0, axis=0, return_inverse=True)
        for p, present in enumerate(patterns):
            rows = which.ravel() == p
            scores = {
                component: sums[rows, 2 * j] / sums[rows, 2 * j + 1]
                for j, component in enumerate(self.components)
                if present[j]
            }
            restraint = scores.pop(RESTRAINT, None)
            combined = combine(scores, self.weights, restraint)
            if combined is not None:
                out[rows] = combined.score
        return out


def headline_change(
    baseline: Iterable[Facet], current: Iterable[Facet], behavior_weights: Mapping[str, float]
) -> HeadlineChange | None:
    """The paired test of the headline score over the item keys both runs have; None when either scores nothing.
    `behavior_weights` holds every behaviour of the library, weight 0 included (its items count for restraint)."""
    a = {f.key: f for f in baseline}
    b = {f.key: f for f in current}
    # Items alike on both sides pooled: one row per distinct (baseline, current) contribution, and its count.
    pooled: Counter[tuple[tuple[tuple[str, float, float], ...], ...]] = Counter()
    flipped = []
    for key in sorted(a.keys() & b.keys()):
        x, y = a[key], b[key]
        if x.behavior not in behavior_weights:
            continue
        sides = (tuple(contributions(x)), tuple(contributions(y)))
        if sides[0] or sides[1]:
            pooled[sides] += 1
            if _worse(x, y):
                flipped.append(key)
    if not pooled:
        return None
    components = sorted({c for sides in pooled for side in sides for c, _, _ in side})
    column = {c: 2 * j for j, c in enumerate(components)}
    on_a, on_b = np.zeros((2, len(pooled), 2 * len(components)))
    for i, sides in enumerate(pooled):
        for matrix, side in zip((on_a, on_b), sides, strict=True):
            for component, credit, weight in side:
                matrix[i, column[component]] += credit
                matrix[i, column[component] + 1] += weight
    counts = np.fromiter(pooled.values(), dtype=float, count=len(pooled))
    n_pairs = int(counts.sum())
    headline = _Headlines(components, behavior_weights)
    sum_a, sum_b = counts @ on_a, counts @ on_b
    observed_a, observed_b = headline(sum_a[None, :])[0], headline(sum_b[None, :])[0]
    if np.isnan(observed_a) or np.isnan(observed_b):
        return None
    difference = float(observed_b - observed_a)

    rng = np.random.default_rng(BOOTSTRAP_SEED)
    moved = np.flatnonzero((on_a != on_b).any(axis=1))  # only items that changed move when swapped
    change = sparse.csr_array(on_b[moved] - on_a[moved])
    swapped = change.T @ rng.binomial(counts[moved].astype(int), 0.5, size=(SWAPS, len(moved))).T
    swapped = swapped.T
    permuted = headline(sum_b - swapped) - headline(sum_a + swapped)
    as_large = np.abs(permuted) >= abs(difference) - 1e-12
    as_large |= np.isnan(permuted)  # an undefined swap counts against the finding
    p = (int(as_large.sum()) + 1) / (SWAPS + 1)

    interval = None
    if n_pairs > 1:
        drawn = rng.multinomial(n_pairs, counts / n_pairs, size=BOOTSTRAP_RESAMPLES).T
        resampled_a, resampled_b = (sparse.csr_array(m).T @ drawn for m in (on_a, on_b))
        low, high = np.nanpercentile(headline(resampled_b.T) - headline(resampled_a.T), [2.5, 97.5])
        interval = (round(float(low), 4), round(float(high), 4))
    return HeadlineChange(
        baseline_value=round(float(observed_a), 4),
        value=round(float(observed_b), 4),
        p_value=min(1.0, p),
        interval=interval,
        n_pairs=n_pairs,
        flipped=flipped,
    )
