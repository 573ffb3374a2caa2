"""Confidence intervals, from SciPy rather than hand-rolled formulas."""

from __future__ import annotations

from scipy.stats import binomtest


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval for a proportion; None when there is nothing to estimate."""
    if n <= 0:
        return None
    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return (round(float(ci.low), 4), round(float(ci.high), 4))
