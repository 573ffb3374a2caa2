"""Number formatting for the templates, so every page prints a rate and its interval the same way."""

from __future__ import annotations

from app.pages.views import Rate

DASH = "—"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{value * 100:.0f}%"


def interval(rate: Rate) -> str:
    """'71–90%' for a rate's 95% interval, empty when there is none."""
    if rate.low is None or rate.high is None:
        return ""
    return f"{rate.low * 100:.0f}–{rate.high * 100:.0f}%"


def score(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


def on_100(value: float | None) -> str:
    """A 0–1 score as the pages print every score: on 0–100 with one decimal, no % (a pass rate has one)."""
    return DASH if value is None else f"{value * 100:.1f}"


def interval_100(rate: Rate) -> str:
    """'25.1–31.2' for a score's 95% interval on 0–100, empty when there is none."""
    if rate.low is None or rate.high is None:
        return ""
    return f"{rate.low * 100:.1f}–{rate.high * 100:.1f}"


def bar_width(value: float | None, width: float) -> float:
    """Length of a bar for a 0–1 value on a scale `width` long (0 for no value)."""
    return 0.0 if value is None else round(max(0.0, min(1.0, value)) * width, 1)
