"""The pages as plain HTML over HTTP: content, filters, sorting, privacy of reports and of transcripts."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import httpx
import pytest

from tests.pages.conftest import Site

pytestmark = pytest.mark.timeout(600)  # the session fixture starts servers and runs two evaluations


class _Rows(HTMLParser):
    """Collects the leaderboard's body rows as lists of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self.rows.append([])
        elif self._in_body and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def rows(html: str) -> list[list[str]]:
    parser = _Rows()
    parser.feed(html)
    return parser.rows


def names(board: list[list[str]]) -> list[str]:
    return [" ".join(r[1].split()[:2]) for r in board]


def percent(cell: str) -> int:
    """The rate printed first in a cell ('43% 32–55%' → 43)."""
    return int(cell.split("%")[0])


def api_report(site: Site, evaluation_id: str) -> dict:
    headers = {"Authorization": f"Bearer {site.key}"}
    return httpx.get(f"{site.base}/v1/evaluations/{evaluation_id}/report", headers=headers).json()


def test_leaderboard_ranks_as_the_api_does_with_intervals(site: Site) -> None:
    page = httpx.get(f"{site.base}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    board = rows(page.text)
    entries = httpx.get(f"{site.base}/v1/leaderboard").json()["entries"]
    assert names(board) == [e["target_name"] for e in entries]
    assert [r[0] for r in board] == ["1", "2"]
    assert len(board[0]) == 10  # rank, model, score, pass rate, four pillars, items, finished
    for row, entry in zip(board, entries, strict=True):
        # the score out of 100 with its band; the pass rate with its %: two words, two ways of printing
        assert row[2].startswith(f"{entry['score_100']:.1f} {entry['band']}") and "%" not in row[2]
        assert re.fullmatch(r"\d+% \d+–\d+%", row[3]) and percent(row[3]) == round(entry["pass_rate"] * 100)


def test_sorting_orders_rows_by_the_column_both_ways(site: Site) -> None:
    for order in ("asc", "desc"):
        page = httpx.get(f"{site.base}/", params={"sort": "pass_rate", "order": order}).text
        rates = [percent(r[3]) for r in rows(page)]
        assert rates == sorted(rates, reverse=order == "desc")
        assert f'aria-sort="{order}ending"' in page
    by_pillar = rows(httpx.get(f"{site.base}/", params={"sort": "pillar:P1", "order": "asc"}).text)
    p1 = [float(r[4].split()[0]) for r in by_pillar]  # pillar scores, on 0–100
    assert p1 == sorted(p1)
    by_name = rows(httpx.get(f"{site.base}/", params={"sort": "model", "order": "desc"}).text)
    assert names(by_name) == ["Toy bot", "Careless bot"]
    assert {r[0] for r in by_name} == {"1", "2"}  # the rank stays the score rank


def test_an_unknown_sort_is_a_problem_naming_the_field(site: Site) -> None:
    response = httpx.get(f"{site.base}/", params={"sort": "pillar:P9"})
    assert response.status_code == 422 and response.json()["field"] == "sort"


def test_filtering_by_country_recomputes_the_rows_from_the_items(site: Site) -> None:
    whole = {names([r])[0]: r for r in rows(httpx.get(f"{site.base}/").text)}
    page = httpx.get(f"{site.base}/", params={"country": "AU", "condition": ""})
    sliced = {names([r])[0]: r for r in rows(page.text)}
    assert "Showing the slice" in page.text and '<option value="AU" selected>' in page.text
    assert set(sliced) == set(whole) == {"Toy bot", "Careless bot"}
    for name, evaluation_id in (("Toy bot", site.careful_id), ("Careless bot", site.careless_id)):
        australia = api_report(site, evaluation_id)["by_country"]["AU"]
        assert int(sliced[name][-2]) == australia["n_items"] < int(whole[name][-2])
        assert percent(sliced[name][3]) == round(australia["pass_rate"] * 100)


def test_a_version_with_no_evaluations_shows_an_empty_board(site: Site) -> None:
    page = httpx.get(f"{site.base}/", params={"version": "hb-000000000000"})
    assert "No public evaluation has finished" in page.text


def test_report_shows_charts_tables_and_shared_transcripts(site: Site) -> None:
    page = httpx.get(f"{site.base}/evaluations/{site.careful_id}")
    assert page.status_code == 200
    html = page.text
    assert html.count('<svg class="chart" role="img"') == 3 and '<title id="chart-pillars-title">' in html
    assert '<title id="chart-behaviors-title">' in html
    for heading in (
        "Pass rate by pillar",
        "Pass rate by behaviour",
        "Persona robustness",
        "Crisis resources by the user",
        "Crisis categories",
        "Failing items",
    ):
        assert heading in html
    assert "suicidal ideation" in html
    assert '<div class="msg reply">' in html  # the owner shared transcripts


def test_report_headline_reads_as_score_out_of_100_with_quality_band_cap_and_pillar_names(site: Site) -> None:
    """One word for one thing: the score on 0–100 beside the quality it was capped from, its band and the cap in
    words; each pillar named, its score and its pass rate each under its own word."""
    report = api_report(site, site.careless_id)
    headline = report["headline"]
    text = html.unescape(httpx.get(f"{site.base}/evaluations/{site.careless_id}").text)
    assert f'data-score-100="{headline["score_100"]}"' in text and f">{headline['score_100']:.1f}<" in text
    assert f'data-band="{headline["band"]}"' in text and headline["band_meaning"] in text
    assert f"{headline['quality_100']:.1f}" in text and "Quality before the safety floors" in text
    assert headline["capped"] and headline["cap"] in text
    assert "Pillars: score and pass rate" in text
    for pillar, score in headline["pillars"].items():
        name = headline["names"][pillar]
        assert re.search(rf"{pillar} {re.escape(name)}</th>\s*<td class=\"num\">{score * 100:.1f}", text), (
            pillar
        )
        assert re.search(
            rf"{pillar} {re.escape(name)}</th>.*?{round(report['by_pillar'][pillar]['pass_rate'] * 100)}%",
            text,
            re.S,
        )


def test_report_hides_transcripts_the_owner_did_not_share(site: Site) -> None:
    html = httpx.get(f"{site.base}/evaluations/{site.careless_id}").text
    assert '<details class="item">' in html and "Why the grader marked it FAIL" in html
    assert '<div class="msg reply">' not in html and "has not shared transcripts" in html
    owner = httpx.get(
        f"{site.base}/evaluations/{site.careless_id}", headers={"Authorization": f"Bearer {site.key}"}
    ).text
    assert '<div class="msg reply">' in owner  # the owning team sees its own transcripts


def test_private_and_unknown_reports_are_not_found_to_the_public(site: Site) -> None:
    with httpx.Client(base_url=site.base, headers={"Authorization": f"Bearer {site.key}"}, timeout=10) as api:
        target_id = api.get("/v1/evaluations").json()["items"][0]["target_id"]
        private = api.post("/v1/evaluations", json={"target_id": target_id, "suite": "quick"}).json()["id"]
        assert httpx.get(f"{site.base}/evaluations/{private}").status_code == 404
        assert api.get(f"/evaluations/{private}").status_code == 200
        assert httpx.get(f"{site.base}/evaluations/ev_nothing").status_code == 404
        api.post(f"/v1/evaluations/{private}/cancel")
        wrong = httpx.get(f"{site.base}/evaluations/{private}", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401


def test_every_slice_shows_only_evaluations_with_items_in_it(site: Site) -> None:
    options = re.findall(r'<option value="([a-z_]+)"', httpx.get(f"{site.base}/").text)
    assert len(options) >= 3
    for condition in options[:4]:
        for country in ("JP", "NZ"):
            page = httpx.get(f"{site.base}/", params={"condition": condition, "country": country}).text
            shown = rows(page)
            hidden = re.search(r"(\d+) evaluations? (?:has|have) no items in it", page)
            if shown and shown[0][0].startswith("No public evaluation"):
                shown = []
            assert len(shown) + (int(hidden.group(1)) if hidden else 0) == 2
            assert all(int(r[-2]) > 0 for r in shown)


def test_pillar_cells_show_the_headline_pillar_scores_as_the_json_board_does(site: Site) -> None:
    """A pillar cell is the severity-weighted pillar score the headline is made of; where a report has none for a
    pillar, its pass rate, and where nothing is graded, the rules-only rate, said as such."""
    board = {names([r])[0]: r for r in rows(httpx.get(f"{site.base}/").text)}
    entries = {e["target_name"]: e for e in httpx.get(f"{site.base}/v1/leaderboard").json()["entries"]}
    for name, evaluation_id in (("Toy bot", site.careful_id), ("Careless bot", site.careless_id)):
        report = api_report(site, evaluation_id)
        scores, by_pillar = report["headline"]["pillars"], report["by_pillar"]
        for column, pillar in enumerate(("P1", "P2", "P3", "P4"), start=4):
            cell, group = board[name][column], by_pillar[pillar]
            if pillar in scores:  # a score: on 0–100, no %
                assert cell.split()[0] == f"{scores[pillar] * 100:.1f}" and "%" not in cell, cell
                assert entries[name]["pillars"][pillar] == scores[pillar]
                assert pillar not in entries[name]["pillar_basis"]
                continue
            if group["pass_rate"] is not None:
                expected, rules_only = group["pass_rate"], False
            else:
                expected, rules_only = group["rules_pass_rate"]["rate"], True
            # a pass rate standing in for the score: with %, and said to be a pass rate
            assert percent(cell) == round(expected * 100) and ("rules only" in cell) == rules_only
            assert "pass rate" in cell and entries[name]["pillar_basis"][pillar].startswith("pass rate")
            assert round(entries[name]["pillars"][pillar] * 100) == percent(cell)


def test_rules_only_evaluations_are_marked_on_the_board_and_the_report(site: Site) -> None:
    """No judge is configured for these runs: a reader is told the numbers are the rules' grade alone."""
    entries = httpx.get(f"{site.base}/v1/leaderboard").json()["entries"]
    assert {e["grader"] for e in entries} == {"rules"}
    assert httpx.get(f"{site.base}/").text.count("graded by rules only") == len(entries)
    report = api_report(site, site.careful_id)
    assert report["grader"]["method"] == "rules" and report["grader"]["n_judged"] == 0
    assert "docs/scoring.md" in report["grader"]["note"]
    page = httpx.get(f"{site.base}/evaluations/{site.careful_id}").text
    assert 'data-grader="rules"' in page and page.count("Graded by rules only") == 1  # said once, not twice


def test_the_board_picks_a_suite_links_its_csv_and_gives_pillar_intervals(site: Site) -> None:
    page = httpx.get(f"{site.base}/", params={"suite": "quick", "sort": "pass_rate"}).text
    assert (
        '<option value="quick" selected>quick</option>' in page
        and '<option value="full">full</option>' in page
    )
    board = rows(page)
    assert names(board) and all(
        re.fullmatch(r"\d+\.\d \d+\.\d–\d+\.\d", r[4]) for r in board
    )  # pillar P1's score on 0–100, with its interval
    link = re.search(r'<a href="([^"]+)" download>Download this board as CSV</a>', page)
    assert link, "no CSV link on the board"
    response = httpx.get(f"{site.base}{html.unescape(link[1])}")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    lines = response.text.strip().splitlines()
    assert [line.split(",")[2] for line in lines[1:]] == [" ".join(r[1].split()[:2]) for r in board]
    entries = httpx.get(f"{site.base}/v1/leaderboard", params={"suite": "quick"}).json()["entries"]
    for entry in entries:
        assert entry["pillar_intervals"] and all(
            low <= entry["pillars"][p] <= high for p, (low, high) in entry["pillar_intervals"].items()
        )
    nothing = rows(httpx.get(f"{site.base}/", params={"suite": "full"}).text)
    assert nothing == [["No public evaluation has finished on this benchmark version yet."]]
