"""`helmbench report`: pillar and behaviour names from the catalogue, and group names never cut short."""

from __future__ import annotations

from app.cli.watch import pct
from app.client import HelmbenchClient
from tests.cli.test_client import cli, server  # noqa: F401 - the served app fixture


def test_report_names_pillars_and_behaviours_in_full(server: tuple[str, str, str]) -> None:  # noqa: F811
    url, key, target = server
    auth = ["--url", url, "--key", key]
    code, out, _ = cli(
        "submit", *auth, "--name", "c", "--base-url", target, "--model", "m", "--suite", "full"
    )
    evaluation_id = out.strip()
    assert cli("watch", evaluation_id, *auth)[0] == 0
    catalogue = HelmbenchClient(url, key).benchmark()
    pillar = catalogue["pillars"][0]
    behavior = pillar["behaviors"][0]

    code, out, err = cli("report", evaluation_id, *auth, env={"COLUMNS": "60"})  # a narrow terminal
    assert code == 0, err
    assert f"{pillar['id']} {pillar['name']}" in out and f"{behavior['id']} {behavior['name']}" in out
    assert "behaviour" in out
    categories = HelmbenchClient(url, key).report(evaluation_id)["by_crisis_category"]
    for category in categories:
        assert category in out, f"{category} cut short"


def test_report_says_score_and_pass_rate_each_in_its_own_words(server: tuple[str, str, str]) -> None:  # noqa: F811
    """The headline as a score out of 100 with its band and the quality beside it; pillars with their score and
    their pass rate, named, so 'P1' is never one figure here and another on the board."""
    url, key, target = server
    auth = ["--url", url, "--key", key]
    evaluation_id = cli(
        "submit", *auth, "--name", "c", "--base-url", target, "--model", "m", "--suite", "full"
    )[1].strip()
    assert cli("watch", evaluation_id, *auth)[0] == 0
    body = HelmbenchClient(url, key).report(evaluation_id)
    headline = body["headline"]

    code, out, err = cli("report", evaluation_id, *auth, env={"COLUMNS": "200"})
    assert code == 0, err
    text = " ".join(out.split())
    assert f"headline score {headline['score_100']:.1f} of 100" in text
    assert f"band {headline['band']}: {headline['band_meaning']}" in text
    assert f"quality before the floors {headline['quality_100']:.1f}" in text
    assert f"pass rate {pct(body['overall']['pass_rate'])}" in text
    if headline["capped"]:
        assert " ".join(headline["cap"].split()) in text
    rows: dict[str, str] = {}  # the first table naming a pillar is the one of scores and pass rates
    for line in out.splitlines():
        if line.count("│") >= 5:
            rows.setdefault(line.split("│")[1].strip(), line)
    for pillar, score in headline["pillars"].items():
        row = rows[f"{pillar} {headline['names'][pillar]}"]
        cells = [c.strip() for c in row.split("│")[2:]]
        assert cells[0] == f"{score * 100:.1f}" and cells[3] == pct(body["by_pillar"][pillar]["pass_rate"]), (
            row
        )
    assert "mean grade (1–5)" in out and "mean score" not in out
