"""`helmbench report`: pillar and behaviour names from the catalogue, and group names never cut short."""

from __future__ import annotations

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
