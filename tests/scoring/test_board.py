"""The one board ranking and its per-pillar fallback, and slice figures equal to the report's own groups."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.benchmark.items import expand_suite
from app.benchmark.loader import load_library
from app.scoring import board as sb
from app.scoring.facets import StoredItem, build_facets
from app.scoring.headline import headline_score
from app.scoring.report import BOARD_SLICES, build_report
from bench.board import board_library

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def entry(ident: str, score: float | None, *, finished: int = 0, pass_rate: float | None = 0.5) -> sb.Entry:
    figures = sb.figures({"headline": {"score": score}, "overall": {"pass_rate": pass_rate, "n": 10}})
    return sb.Entry(ident, f"name {ident}", "m", "quick", T0 + timedelta(days=finished), figures)


def test_the_best_score_ranks_first_ties_go_to_the_earlier_finish_and_no_score_is_left_off() -> None:
    ranked = sb.rank(
        [entry("a", 0.5, finished=2), entry("b", 0.9), entry("c", None), entry("d", 0.5, finished=1)]
    )
    assert [(r, e.evaluation_id) for r, e in ranked] == [(1, "b"), (2, "d"), (3, "a")]


def test_a_column_sort_puts_missing_values_last_both_ways_and_keeps_ranks() -> None:
    ranked = sb.rank(
        [entry("a", 0.9, pass_rate=0.2), entry("b", 0.8, pass_rate=None), entry("c", 0.7, pass_rate=0.6)]
    )
    for order, expected in (("asc", ["a", "c", "b"]), ("desc", ["c", "a", "b"])):
        rows = sb.ordered(ranked, "pass_rate", order)  # type: ignore[arg-type]
        assert [e.evaluation_id for _, e in rows] == expected
        assert {e.evaluation_id: r for r, e in rows} == {"a": 1, "b": 2, "c": 3}


def test_a_pillar_shows_its_headline_score_else_its_pass_rate_else_its_rules_only_rate() -> None:
    summary = {
        "headline": {"score": 0.6, "pillars": {"P1": 0.72}},
        "by_pillar": {
            "P1": {"pass_rate": 0.5, "interval": [0.4, 0.6], "n": 30},
            "P2": {"pass_rate": 0.4, "interval": [0.3, 0.5], "n": 20},
            "P3": {
                "pass_rate": None,
                "n": 0,
                "rules_pass_rate": {"rate": 0.8, "interval": [0.6, 0.9], "n": 5},
            },
        },
    }
    pillars = sb.pillar_rates(summary)
    assert pillars["P1"] == sb.Rate(0.72, n=30)
    assert pillars["P2"] == sb.Rate(
        0.4, 0.3, 0.5, 20, basis="pass rate"
    )  # said, so no page prints it as a score
    assert pillars["P3"] == sb.Rate(0.8, 0.6, 0.9, 5, basis="pass rate, rules only")


def test_stored_slices_carry_the_reports_own_country_and_condition_figures(tmp_path: Path) -> None:
    library = load_library(board_library(tmp_path))
    rng = random.Random(4)
    items = [
        StoredItem(
            s.key,
            s.scenario_id,
            s.condition_id,
            s.user_context_id,
            s.perturbation_id,
            s.repeat,
            rng.choice(["PASS", "PASS", "PARTIAL", "FAIL"]),
            None,
            {"escalates": rng.random() < 0.7},
            None,
        )
        for s in expand_suite(library, "quick")
    ]
    report = build_report(items, library, with_slices=True)
    facets = build_facets(items, library)
    slices = report[BOARD_SLICES]
    groups = {"country": report["by_country"], "condition": report["by_condition"]}
    assert sum(k.startswith("country:") for k in slices) >= 3
    assert sum(k.startswith("condition:") for k in slices) >= 3
    for name, figures in slices.items():
        kind, key = name.split(":", 1)
        assert figures["overall"]["pass_rate"] == groups[kind][key]["pass_rate"]
        assert figures["n_items"] == groups[kind][key]["n_items"]
        part = [f for f in facets if sb.slice_key(kind, f) == key]
        assert figures["headline"]["score"] == headline_score(part, library)["score"]
    whole = sb.figures(report)
    assert whole.score.value == report["headline"]["score"] and whole.n_items == len(items)
    scored = [r for r in whole.pillars.values() if r.low is not None]
    assert scored and all(r.low <= r.value <= r.high for r in scored)  # each pillar's bootstrap interval
    assert BOARD_SLICES not in build_report(items, library)
    assert sb.figures(sb.compact(report)) == whole  # what the store keeps reads as the whole report


def test_figures_read_a_report_without_slices_or_pillar_scores() -> None:
    old = {
        "headline": {"score": 0.55},
        "overall": {"pass_rate": 0.7},
        "by_pillar": {"P1": {"pass_rate": 0.6}},
    }
    f = sb.figures(old)
    assert f.score.value == 0.55 and f.pillars["P1"].value == 0.6 and f.n_items == 0
