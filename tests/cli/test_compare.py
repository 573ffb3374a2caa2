"""`helmbench compare`: paired intervals and p-values from the API, and a refusal when no item pairs."""

from __future__ import annotations

from rich.console import Console

from app.cli.compare import compare_table
from tests.cli.test_client import cli, server  # noqa: F401 - the served app fixture


def run(auth: list[str], name: str, base_url: str) -> str:
    code, out, err = cli(
        "submit", *auth, "--name", name, "--base-url", base_url, "--model", "m", "--suite", "full"
    )
    assert code == 0, err
    cli("watch", out.strip(), *auth)
    return out.strip()


def test_compare_shows_intervals_and_p_values(server: tuple[str, str, str]) -> None:  # noqa: F811
    url, key, target = server
    auth = ["--url", url, "--key", key]
    a, b = run(auth, "a", target), run(auth, "b", target)
    code, out, err = cli("compare", a, b, *auth)
    assert code == 0, err
    assert "95% interval" in out and "p (Holm)" in out and "pairs" in out
    headline = next(line for line in out.splitlines() if line.strip("│ ").startswith("headline "))
    assert "+0.000" in headline and "1.0000" in headline and "9" in headline  # no change, p = 1, 9 pairs
    assert "NO ITEMS PAIR" not in err


def test_compare_refuses_when_no_item_pairs(server: tuple[str, str, str]) -> None:  # noqa: F811
    url, key, target = server
    auth = ["--url", url, "--key", key]
    good = run(auth, "good", target)
    broken = run(auth, "gone", target.removesuffix("/v1") + "/nowhere")  # every item fails: nothing graded
    code, out, err = cli("compare", good, broken, *auth)
    assert code == 1
    assert "NO ITEMS PAIR" in err and good in err and broken in err
    assert "B − A" in out, "the differences are still shown"
    code, _, err = cli("compare", good, broken, "--json", *auth)
    assert code == 1 and "NO ITEMS PAIR" in err


def test_compare_rows_say_which_figure_is_a_score_and_which_a_pass_rate() -> None:
    row = {"a": 0.5, "b": 0.4, "difference": -0.1}
    body = {"metrics": {"headline": row, "pass_rate": row, "pillar:P1": row, "behavior:P1-B1": row}}
    console = Console(width=200, record=True)
    console.print(compare_table("A", "B", body, {"P1": "Detect user distress", "P1-B1": "Late planning"}))
    text = console.export_text()
    assert "headline score" in text and "pass rate" in text
    assert "P1 Detect user distress: pass rate" in text and "P1-B1 Late planning: pass rate" in text
    assert "pillar:P1" not in text and "behavior:" not in text
