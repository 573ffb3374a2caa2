"""`helmbench compare A B`: two evaluations metric by metric (B − A), with the API's paired intervals and
p-values, and a loud refusal when no item of one pairs with an item of the other."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from app.cli.connect import KeyOpt, UrlOpt, connect, one_line_errors
from app.cli.report import catalogue_names
from app.client import ApiError, HelmbenchClient
from app.scoring.vocabulary import metric_label


def local_compare(client: HelmbenchClient, a: str, b: str) -> dict[str, Any]:
    """The same metric rows as GET /v1/compare, from the two reports (for servers without it)."""
    ra, rb = client.report(a), client.report(b)

    def row(x: float | None, y: float | None) -> dict[str, Any]:
        return {"a": x, "b": y, "difference": round(y - x, 4) if x is not None and y is not None else None}

    metrics = {
        "headline": row(ra.get("headline", {}).get("score"), rb.get("headline", {}).get("score")),
        "pass_rate": row(ra.get("overall", {}).get("pass_rate"), rb.get("overall", {}).get("pass_rate")),
    }
    for pillar in sorted(set(ra.get("by_pillar", {})) | set(rb.get("by_pillar", {}))):
        metrics[f"pillar:{pillar}"] = row(
            ra.get("by_pillar", {}).get(pillar, {}).get("pass_rate"),
            rb.get("by_pillar", {}).get(pillar, {}).get("pass_rate"),
        )
    return {"a": {"id": a}, "b": {"id": b}, "metrics": metrics, "computed": "client-side"}


def fetch_compare(client: HelmbenchClient, a: str, b: str) -> dict[str, Any]:
    """GET /v1/compare (differences and paired tests), or the differences alone from a server without it."""
    try:
        return client.compare(a, b)
    except ApiError as exc:
        if exc.status != 404 or exc.field:  # a 404 naming a field is a real answer
            raise
        return local_compare(client, a, b)


def n_pairs(body: dict[str, Any]) -> int | None:
    """How many item cells both runs graded (None when the server made no paired tests)."""
    paired = body.get("paired")
    if not isinstance(paired, dict):
        return None
    overall = paired.get("overall", {}).get("pass", {}).get("n_pairs") or 0
    by_metric = max((m.get("n_pairs", 0) for m in paired.get("by_metric", {}).values()), default=0)
    return max(overall, by_metric)


def _num(value: float | None, form: str = ".3f") -> str:
    return "–" if value is None else format(value, form)


def compare_table(a: str, b: str, body: dict[str, Any], names: dict[str, str] | None = None) -> Table:
    """One row a metric, named in the report's words: 'pillar:P1' reads as P1's name and 'pass rate'."""
    tests = body.get("paired", {}).get("by_metric", {})
    table = Table(title=f"B − A   (A = {a}, B = {b})", title_justify="left")
    table.add_column("metric", no_wrap=True)
    for column in ("A", "B", "B − A", "95% interval", "p", "p (Holm)", "pairs"):
        table.add_column(column, justify="right")
    for name, row in body.get("metrics", {}).items():
        diff = row.get("difference")
        colour = "white" if not diff else "green" if diff > 0 else "red"
        test = tests.get(name, {})
        interval = test.get("interval")
        table.add_row(
            body.get("labels", {}).get(name) or metric_label(name, names),
            _num(row.get("a")),
            _num(row.get("b")),
            "–" if diff is None else f"[{colour}]{diff:+.3f}[/]",
            f"{interval[0]:+.3f} … {interval[1]:+.3f}" if interval else "–",
            _num(test.get("p_value"), ".4f"),
            _num(test.get("p_adjusted"), ".4f"),
            str(test.get("n_pairs", "–")),
        )
    return table


def compare(
    a: str,
    b: str,
    url: UrlOpt = None,
    key: KeyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare two evaluations metric by metric (B − A) with paired intervals and Holm-adjusted p-values;
    exits 1 when no item pairs (the differences are then between unrelated sets of items)."""
    with one_line_errors():
        client = connect(url, key)
        body = fetch_compare(client, a, b)
        names = {} if as_json else catalogue_names(client)
    if as_json:
        typer.echo(json.dumps(body, indent=2))
    else:
        Console().print(compare_table(a, b, body, names))
    pairs = n_pairs(body)
    if pairs is None:
        typer.echo("warning: the server made no paired tests; the differences are shown untested", err=True)
    elif pairs == 0:
        Console(stderr=True).print(
            f"[bold red]NO ITEMS PAIR[/] between {a} and {b}: neither run graded an item the other did "
            "(different suites, or every item failed), so these differences test nothing.",
            soft_wrap=True,
        )
        raise typer.Exit(1)
