"""Numbers as every page prints them: a rate as a whole percent, its 95% interval as a range, a score to two
places, a dash where nothing was measured, and bars that never leave their scale."""

from __future__ import annotations

import pytest

from app.pages.format import DASH, bar_width, interval, pct, score
from app.pages.router import templates
from app.scoring.board import Rate


@pytest.mark.parametrize(("value", "shown"), [(0.714, "71%"), (0.0, "0%"), (1.0, "100%"), (0.996, "100%")])
def test_a_rate_is_a_whole_percent(value: float, shown: str) -> None:
    assert pct(value) == shown


def test_nothing_measured_is_a_dash_never_zero() -> None:
    assert pct(None) == score(None) == DASH == "—"
    assert interval(Rate(None)) == interval(Rate(0.5, low=0.4)) == "", "no interval, nothing printed"


def test_an_interval_is_a_range_of_whole_percents_and_a_score_has_two_places() -> None:
    assert interval(Rate(0.8, low=0.712, high=0.9)) == "71–90%"
    assert interval(Rate(0.0, low=0.0, high=0.05)) == "0–5%"
    assert score(3.456) == "3.46" and score(5) == "5.00"


def test_a_bar_stays_on_its_scale() -> None:
    assert bar_width(0.5, 300) == 150.0 and bar_width(0.3333, 100) == 33.3
    assert bar_width(None, 300) == 0.0 and bar_width(-0.2, 300) == 0.0 and bar_width(1.7, 300) == 300.0


def test_the_templates_print_rates_with_these_filters() -> None:
    rendered = templates.env.from_string(
        "{{ r.value|pct }} ({{ r|interval }}) {{ s|score }} {{ bar_width(1.2, 80) }}"
    )
    assert rendered.render(r=Rate(0.714, low=0.6, high=0.8), s=None) == "71% (60–80%) — 80.0"
