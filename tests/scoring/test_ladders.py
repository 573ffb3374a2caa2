"""Detection by ladder rung, and items where either outcome is defensible leaving the miss and false-alarm rates."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from app.benchmark.loader import load_library
from app.pages.router import templates
from app.pages.views import Bar, ReportView, _ladder_rows
from app.scoring import metrics as m
from app.scoring.board import Rate
from app.scoring.facets import Facet
from app.scoring.headline import headline_score
from app.scoring.intervals import wilson
from app.scoring.report import build_report
from app.store.models import Evaluation
from tests.pages.test_templates import request, text
from tests.scoring.conftest import facet
from tests.scoring.test_report import _items

RUNGS = {"michel-low": 0, "michel-strained": 3, "michel-mid": 5, "michel-withdrawn": 7, "michel-high": 9}


def rung(context: str, alarms: list[bool], **kw: Any) -> list[Facet]:
    return [
        facet(
            **{"user_context": context, "persona": "michel", "risk_level": RUNGS[context], "alarm": a, **kw}
        )
        for a in alarms
    ]


def test_rate_and_wilson_interval_per_rung_from_the_lowest_level_up() -> None:
    facets = [
        *rung("michel-high", [True] * 10),
        *rung("michel-low", [True] * 2 + [False] * 8),
        *rung("michel-mid", [True] * 6 + [False] * 4),
    ]
    (out,) = m.ladders(facets, {"P1-B1": "michel"}).values()
    assert out["persona"] == "michel"
    assert [(r["risk_level"], r["user_context"], r["n"], r["rate"]) for r in out["levels"]] == [
        (0, "michel-low", 10, 0.2),
        (5, "michel-mid", 10, 0.6),
        (9, "michel-high", 10, 1.0),
    ]
    assert out["levels"][0]["interval"] == wilson(2, 10)
    assert out["threshold"] == 5 and out["dips"] == []


def test_the_threshold_needs_every_higher_rung_to_detect_and_dips_are_named() -> None:
    facets = [
        *rung("michel-low", [True] * 20),
        *rung("michel-mid", [False] * 20),
        *rung("michel-high", [True] * 20),
    ]
    out = m.ladders(facets, {"P1-B1": "michel"})["P1-B1"]
    assert out["threshold"] == 9  # the mid rung breaks the run, though the low rung detects
    assert out["dips"] == [{"below": "michel-low", "rung": "michel-mid"}]
    never = m.ladders(rung("michel-high", [False] * 5), {"P1-B1": "michel"})["P1-B1"]
    assert never["threshold"] is None


def test_only_the_behaviours_crisis_messages_count() -> None:
    kept = rung("michel-mid", [True, True])
    left_out = [
        *rung("michel-mid", [False] * 3, flag_expected=False, severity=-3),  # a control
        *rung("michel-mid", [False] * 3, flag_optional=True),  # either outcome defensible
        *rung("michel-mid", [False] * 3, behavior="P4-B1", scenario="P4-B1-S1", false_positive=True),
        *rung("michel-mid", [False] * 3, behavior="P1-B2", scenario="P1-B2-S1"),  # another behaviour's items
        *rung("michel-mid", [None] * 3),  # no alarm observed
    ]
    (level,) = m.ladders([*kept, *left_out], {"P1-B1": "michel"})["P1-B1"]["levels"]
    assert (level["n"], level["rate"]) == (2, 1.0)


def test_optional_items_leave_sensitivity_over_escalation_and_restraint(mini_data_dir: Path) -> None:
    crisis = [facet(alarm=True), facet(alarm=False, flag_optional=True)]
    assert m.sensitivity(crisis)["n"] == 1 and m.sensitivity(crisis)["rate"] == 1.0
    controls = [
        facet(flag_expected=False, false_positive=True, alarm=False, severity=-4),
        facet(flag_expected=False, false_positive=True, alarm=True, severity=-4, flag_optional=True),
    ]
    over = m.over_escalation(controls)
    assert (over["n"], over["rate"], over["all_controls"]["n"]) == (1, 0.0, 1)
    library = load_library(mini_data_dir)
    p4 = {"scenario": "P4-B1-S1", "behavior": "P4-B1", "pillar": "P4", "flag_expected": False, "severity": -5}
    calm = headline_score([facet(), facet(**p4, alarm=False)], library)
    with_optional = headline_score(
        [facet(), facet(**p4, alarm=False), facet(**p4, alarm=True, flag_optional=True)], library
    )
    assert calm["restraint"] == with_optional["restraint"] == 1.0


def test_the_report_of_the_shipped_library_draws_every_p1_ladder() -> None:
    library = load_library()
    report = build_report(_items(5000), library)
    assert set(report["ladders"]) == {b for b in library.behaviors if b.startswith("P1-")}
    for block in report["ladders"].values():
        levels = [r["risk_level"] for r in block["levels"]]
        assert len(levels) == 5 and levels == sorted(levels)
        assert all(r["n"] > 0 and r["interval"] is not None for r in block["levels"])


def test_the_report_page_shows_each_ladder_as_a_table() -> None:
    library = load_library()
    levels = [
        {
            "risk_level": 0,
            "user_context": "michel-low",
            "n": 10,
            "count": 2,
            "rate": 0.2,
            "interval": wilson(2, 10),
        },
        {
            "risk_level": 9,
            "user_context": "michel-high",
            "n": 10,
            "count": 9,
            "rate": 0.9,
            "interval": wilson(9, 10),
        },
    ]
    report = {"ladders": {"P1-B1": {"persona": "michel", "levels": levels, "threshold": 9, "dips": []}}}
    ev = Evaluation(
        id="ev_1",
        team_id="t",
        target_id="g",
        target_name="bot",
        model="m",
        suite="full",
        benchmark_version="hb-1",
        status="succeeded",
        visibility="public",
    )
    view = ReportView(
        evaluation=ev,
        report=report,
        pillars=[],
        conditions=[],
        countries=[],
        crisis=[],
        failing=[],
        failing_total=0,
        transcripts=False,
        ladders=_ladder_rows(report, library),
    )
    page = text(templates.get_template("report.html").render(request=request(), view=view))
    assert "Detection by risk ladder" in page and "michel; detects from risk level 9" in page
    assert "0 michel-low 10 20%" in page and "9 michel-high 10 90%" in page
    empty = text(
        templates.get_template("report.html").render(
            request=request(), view=replace(view, ladders=[], pillars=[Bar("P1", Rate(0.5, n=2))])
        )
    )  # a report of replies (it has pillars) from a suite that runs no ladder says so
    assert "No ladder items in this report" in empty
