"""Templates escape what teams and models wrote: target names and transcripts are shown to the public."""

from __future__ import annotations

import re
from dataclasses import replace

from starlette.requests import Request

from app.pages.router import templates
from app.pages.views import Bar, BoardRow, BoardView, FailingItem, Rate, ReportView
from app.scoring.leaderboard import BoardQuery
from app.store.models import Evaluation, Regression

HOSTILE = '<script>alert("x")</script>'


def text(html: str) -> str:
    """The page's text with tags removed and whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def request() -> Request:
    return Request(
        {
            "type": "http",
            "method": "GET",
            "path": "/",
            "query_string": b"",
            "headers": [],
            "server": ("testserver", 80),
            "scheme": "http",
            "root_path": "",
        }
    )


def test_leaderboard_escapes_target_names_and_marks_the_sorted_column() -> None:
    row = BoardRow(
        evaluation_id="ev_1",
        target_name=HOSTILE,
        model="m",
        suite="quick",
        score=Rate(0.5, 0.4, 0.6),
        pass_rate=Rate(0.25, 0.2, 0.3, 40),
        pillars={"P1": Rate(None)},
        n_items=40,
        finished="2026-01-01",
        rank=1,
    )
    view = BoardView(
        filters=BoardQuery(sort="pass_rate", order="asc"),
        version="hb-1",
        rows=[row],
        pillars={"P1": "Detect"},
        conditions={},
        countries={},
        versions=["hb-1"],
    )
    html = templates.get_template("leaderboard.html").render(request=request(), view=view)
    assert HOSTILE not in html and "&lt;script&gt;" in html
    assert 'aria-sort="ascending"' in html and "25% 20–30%" in text(html)
    assert "not graded" in html  # a pillar with no graded items says so instead of showing 0%
    rules = replace(row, pillars={"P1": Rate(0.6, 0.5, 0.7, 10, basis="rules only")})
    html = templates.get_template("leaderboard.html").render(
        request=request(), view=replace(view, rows=[rules])
    )
    assert "60% 50–70% rules only" in text(html)


def test_report_escapes_transcripts_and_labels_its_charts() -> None:
    ev = Evaluation(
        id="ev_1",
        team_id="team_1",
        target_id="tgt_1",
        target_name=HOSTILE,
        model="m",
        suite="quick",
        benchmark_version="hb-1",
        status="succeeded",
        visibility="public",
    )
    item = FailingItem(
        code="P1-B1-S1-C1-PT1",
        scenario="P1-B1-S1",
        title="t",
        condition="Plain",
        country="",
        crisis_category="suicidal ideation",
        verdict="FAIL",
        reasons=["escalates: no pointer"],
        system="sys",
        turns=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "<img src=x onerror=alert(1)>"},
        ],
    )
    view = ReportView(
        evaluation=ev,
        report={},
        pillars=[Bar("P1 Detect", Rate(0.5, 0.3, 0.7, 10))],
        conditions=[],
        countries=[],
        crisis=[],
        failing=[item],
        failing_total=1,
        transcripts=True,
    )
    html = templates.get_template("report.html").render(request=request(), view=view)
    assert HOSTILE not in html and "<img src=x" not in html and "&lt;img src=x" in html
    assert '<title id="chart-pillars-title">Pass rate by pillar</title>' in html
    assert "model reply (graded)" in html and "escalates: no pointer" in html


def test_regressions_name_each_metric_as_a_score_or_a_pass_rate() -> None:
    ev = Evaluation(
        id="ev_2",
        team_id="t",
        target_id="tg",
        target_name="bot",
        model="m",
        suite="quick",
        status="succeeded",
    )
    found = [
        Regression(
            team_id="t",
            evaluation_id="ev_2",
            baseline_evaluation_id="ev_1",
            metric=metric,
            test="mcnemar",
            baseline_value=0.9,
            value=0.5,
            difference=-0.4,
            p_value=0.001,
            p_adjusted=0.004,
            n_pairs=20,
        )
        for metric in ("headline", "pillar:P1")
    ]
    view = ReportView(
        evaluation=ev,
        report={},
        pillars=[],
        conditions=[],
        countries=[],
        crisis=[],
        failing=[],
        failing_total=0,
        transcripts=False,
        regressions=found,
        names={"P1": "Detect user distress"},
    )
    shown = text(templates.get_template("report.html").render(request=request(), view=view))
    assert "headline score 0.90" in shown and "P1 Detect user distress: pass rate 0.90" in shown
    assert "pillar:P1" not in shown
