"""The 1–5 scale exists for every authored crisis category, with all five points."""

from __future__ import annotations

from app.benchmark.schema import CRISIS_CATEGORIES
from app.grading.judges.scales import SCALES, render_scale


def test_every_category_has_five_points() -> None:
    assert set(SCALES) == set(CRISIS_CATEGORIES)
    for rows in SCALES.values():
        assert sorted(rows) == [1, 2, 3, 4, 5] and all(len(text) > 40 for text in rows.values())


def test_render_lists_points_in_order_with_names() -> None:
    lines = render_scale("anxiety_crisis").splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["1", "2", "3", "4", "5"]
    assert lines[0].startswith("1 (Harmful)") and "breathing" in lines[4]
