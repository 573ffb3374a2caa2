"""The report's `judges` section on hand-built facets: panel α, split items, rules-vs-judge agreement."""

from __future__ import annotations

import pytest

from app.scoring.facets import Facet
from app.scoring.judges import (
    MAX_LISTED,
    disagreements,
    grader_section,
    judge_score,
    panel_agreement,
    rules_vs_judge,
)
from tests.scoring.conftest import facet

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the worked example: 4 observers, 12 units,
# values 1-5 with gaps. The paper gives α = 0.743 (nominal), 0.815 (ordinal), 0.849 (interval).
_ = None
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
]


def panel(*scores: float | None, key: str = "k", rules: int | None = None) -> Facet:
    return facet(key=key, panel_scores=tuple(scores), rules_score=rules)


def test_alpha_matches_the_published_ordinal_value() -> None:
    units = list(zip(*KRIPPENDORFF_2011, strict=True))
    out = panel_agreement([panel(*unit, key=f"u{i}") for i, unit in enumerate(units)])
    assert out["alpha"] == pytest.approx(0.815, abs=5e-4) and out["level"] == "ordinal"
    assert (out["n_items"], out["n_judges"]) == (11, 4)  # the last unit has one value: it cannot pair
    assert [j["n_unusable"] for j in out["by_judge"]] == [3, 1, 2, 1]


def test_alpha_falls_when_one_judge_goes_its_own_way() -> None:
    agree = [panel(s, s, s, key=f"a{i}") for i, s in enumerate([1, 2, 3, 4, 5, 2, 4])]
    rogue = [panel(s, s, 6 - s, key=f"r{i}") for i, s in enumerate([1, 2, 3, 4, 5, 2, 4])]
    assert panel_agreement(agree)["alpha"] == 1.0
    assert panel_agreement(rogue)["alpha"] < 0.5


def test_alpha_is_not_measured_without_a_panel_or_without_variation() -> None:
    one = panel_agreement([panel(4), panel(2)])
    assert one["alpha"] is None and one["n_judges"] == 1 and "2 or 3 judges" in one["reason"]
    unpaired = panel_agreement([panel(4, None), panel(None, 2)])
    assert unpaired["alpha"] is None and unpaired["n_items"] == 0 and "two judges" in unpaired["reason"]
    flat = panel_agreement([panel(3, 3, 3), panel(3, 3, None)])
    assert flat["alpha"] is None and flat["n_items"] == 2 and "undefined" in flat["reason"]
    legacy = panel_agreement([facet(score=4.0), facet(score=2.0)])
    assert legacy["alpha"] is None and legacy["n_judges"] == 0


def test_split_items_are_listed_widest_first_and_capped() -> None:
    items = [
        panel(4, 5, 4, key="close"),
        panel(5, 3, 4, key="two-apart"),
        panel(5, 1, None, key="four-apart"),
        panel(None, 2, None, key="alone"),
    ]
    out = disagreements(items)
    assert out["n"] == 2 and out["more"] == 0 and out["threshold"] == 2
    assert [(i["key"], i["spread"]) for i in out["items"]] == [("four-apart", 4), ("two-apart", 2)]
    assert out["items"][0]["scores"] == [5, 1, None]
    many = disagreements([panel(1, 5, 3, key=f"s{i}") for i in range(MAX_LISTED + 7)])
    assert (many["n"], len(many["items"]), many["more"]) == (MAX_LISTED + 7, MAX_LISTED, 7)


def test_judge_score_is_the_median_of_the_judges_that_answered() -> None:
    assert judge_score(panel(2, 5, None)) == 3.5
    assert judge_score(panel(2, 5, 4)) == 4.0
    assert judge_score(panel(None, None)) is None
    assert judge_score(facet(score=3.0)) == 3.0  # stored before panels


def test_rules_vs_judge_on_items_with_both_grades() -> None:
    items = [
        panel(2, 2, key="a", rules=1),
        panel(1, key="b", rules=2),
        panel(5, 5, key="c", rules=4),
        panel(4, key="d", rules=5),
        panel(3, 3, key="e", rules=3),
        panel(4, key="no-rules"),
        facet(key="no-judge", rules_score=5),
        panel(None, None, key="judges-unusable", rules=1),
    ]
    out = rules_vs_judge(items)
    assert out["n"] == 5 and out["reason"] is None
    assert out["mae"] == pytest.approx(0.8) and out["agreement"] == pytest.approx(0.2)
    assert out["kappa_kind"] == "quadratic-weighted" and 0.5 < out["kappa"] < 1.0
    buckets = out["buckets"]
    assert buckets["kappa"] == 1.0 and buckets["labels"] == ["FAIL", "PARTIAL", "PASS"]
    assert buckets["confusion"] == [[2, 0, 0], [0, 1, 0], [0, 0, 2]]


def test_rules_vs_judge_rounds_a_split_median_down_for_kappa_only() -> None:
    out = rules_vs_judge([panel(3, 4, rules=4), panel(1, rules=1), panel(5, rules=5)])
    assert out["confusion"][3][2] == 1  # rules 4, judges 3.5 → counted as 3, the worse grade
    assert out["mae"] == pytest.approx(0.5 / 3, abs=1e-4)  # the exact median's error, 0.5
    assert out["buckets"]["confusion"][2][1] == 1  # PASS by the rules, PARTIAL by the judges


def test_rules_vs_judge_is_not_measured_without_overlap() -> None:
    out = rules_vs_judge([panel(4, 4), facet(rules_score=3)])
    assert out["n"] == 0 and out["kappa"] is None and "rules grade and a judge score" in out["reason"]


def test_the_grader_section_says_which_kind_of_grade_the_numbers_are() -> None:
    rules = grader_section([facet(key="a"), facet(key="b")])
    assert rules["method"] == "rules" and rules["n_judged"] == 0 and "docs/scoring.md" in rules["note"]
    one = grader_section([facet(key="a", score=4.0), facet(key="b")])
    assert one["method"] == "judge" and one["n_judged"] == 1 and "1 of 2 items" in one["note"]
    assert grader_section([panel(4, 5, key="a"), panel(3, None, key="b")])["method"] == "panel"
