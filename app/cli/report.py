"""`helmbench report` and `export`: an evaluation's report as terminal tables, its items as JSONL, its
aggregates as CSV."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from app.cli.classification import print_classification
from app.cli.connect import KeyOpt, UrlOpt, connect, one_line_errors
from app.cli.watch import pct
from app.client import ApiError, HelmbenchClient
from app.scoring.vocabulary import labelled, legible

# (report section, heading); pillars and behaviours are shown with their names from the catalogue.
SECTIONS = (
    ("by_pillar", "pillar pass rates"),
    ("by_behavior", "behaviour pass rates"),
    ("by_condition", "condition"),
    ("by_country", "country"),
    ("by_crisis_category", "crisis category"),
)


def interval_text(row: dict[str, Any]) -> str:
    lo_hi = row.get("interval")
    return f"{lo_hi[0] * 100:.0f}–{lo_hi[1] * 100:.0f}%" if lo_hi else "–"


def mean_of(row: dict[str, Any]) -> float | None:
    """The mean 1–5 score of a group, whether the report gives it bare or with its interval."""
    value = row.get("mean_score")
    return value.get("mean") if isinstance(value, dict) else value


def catalogue_names(client: HelmbenchClient) -> dict[str, str]:
    """Pillar and behaviour ids → their names, from the server's catalogue; empty if it cannot say."""
    try:
        catalogue = client.benchmark()
    except ApiError:
        return {}
    names: dict[str, str] = {}
    for pillar in catalogue.get("pillars", []):
        names[pillar["id"]] = pillar["name"]
        for behavior in pillar.get("behaviors", []):
            names[behavior["id"]] = behavior["name"]
    return names


def names_of(client: HelmbenchClient) -> dict[str, str]:
    """Pillar and behaviour ids → "id name" from the server's catalogue; ids alone if it cannot say."""
    return {ident: labelled(ident, table) for table in [catalogue_names(client)] for ident in table}


def section_table(title: str, rows: dict[str, dict[str, Any]], names: dict[str, str]) -> Table:
    """One report section's groups by their pass rate; a group the report names (pillars, behaviours) by its name,
    else by the catalogue's."""
    labels = {
        group: labelled(group, {group: row["name"]}) if row.get("name") else names.get(group, group)
        for group, row in rows.items()
    }
    table = Table(title=title, title_justify="left")
    # Never cut a group's name: it is the one column a reader looks things up by; the figures may squeeze.
    width = max(map(len, labels.values()), default=5)
    table.add_column("group", min_width=width, no_wrap=True, overflow="fold")
    for column in ("graded", "passed", "pass rate", "95% interval", "mean grade (1–5)"):
        table.add_column(column, justify="right")
    for group, row in rows.items():
        mean = mean_of(row)
        table.add_row(
            labels[group],
            str(row.get("n", "–")),
            str(row.get("passed", "–")),
            pct(row.get("pass_rate")),
            interval_text(row),
            "–" if mean is None else f"{mean:.2f}",
        )
    return table


def report(
    evaluation_id: str,
    url: UrlOpt = None,
    key: KeyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Print an evaluation's report as tables: overall, pillars, behaviours, conditions, countries, crisis
    categories."""
    with one_line_errors():
        client = connect(url, key)
        body = client.report(evaluation_id)
        names = {} if as_json else names_of(client)
    if as_json:
        typer.echo(json.dumps(body, indent=2))
        return
    console = Console()
    if body.get("classification"):
        print_classification(console, evaluation_id, body)
        return
    overall = body.get("overall", {})
    console.print(
        f"[bold]{evaluation_id}[/] {body.get('status')} · {body.get('n_items', 0)} items · errors "
        f"{body.get('n_errors', 0)}"
    )
    for line in headline_lines(body.get("headline") or {}, overall):
        console.print(line, soft_wrap=True)
    if (body.get("headline") or {}).get("pillars"):
        console.print(pillar_table(body, names))
    for section, title in SECTIONS:
        if body.get(section):
            console.print(section_table(title, body[section], names))
    if body.get("conversations"):
        console.print(conversations_table(body["conversations"]))


def headline_lines(headline: dict[str, Any], overall: dict[str, Any]) -> list[str]:
    """The headline as the pages say it: the score out of 100 with its band, the quality it was capped from, the
    cap in words; the pass rate under its own word."""
    shown = legible(headline)
    pass_rate = f"pass rate {pct(overall.get('pass_rate'))} ({interval_text(overall)}) of graded items passed"
    if shown["score_100"] is None:
        return [f"headline score – (nothing scored) · {pass_rate}"]
    interval = headline.get("interval")
    around = f" (95% {interval[0] * 100:.1f}–{interval[1] * 100:.1f})" if interval else ""
    quality = shown["quality_100"]
    lines = [
        f"headline score [bold]{shown['score_100']:.1f}[/] of 100{around} · band {shown['band']}: "
        f"{shown['band_meaning']}"
        + (f" · quality before the floors {quality:.1f}" if quality is not None else ""),
        pass_rate,
    ]
    if shown.get("cap"):
        lines.append(f"[yellow]{shown['cap']}[/]")
    return lines


def pillar_table(body: dict[str, Any], names: dict[str, str]) -> Table:
    """Per pillar, its score (0–100, what the headline is made of) beside its pass rate: two words, two figures."""
    headline = body.get("headline") or {}
    scores, intervals = headline.get("pillars") or {}, headline.get("pillar_intervals") or {}
    floors, blocks = headline.get("floors") or {}, body.get("by_pillar") or {}
    named = headline.get("names") or {}
    table = Table(title="pillars: score and pass rate", title_justify="left")
    table.add_column("pillar", no_wrap=True, overflow="fold")
    for column in ("score (0–100)", "95% interval", "safety floor", "pass rate"):
        table.add_column(column, justify="right")
    for p in sorted(set(scores) | set(blocks)):
        low_high = intervals.get(p)
        floor = (floors.get(p) or {}).get("floor")
        table.add_row(
            labelled(p, named) if p in named else names.get(p, p),
            "–" if scores.get(p) is None else f"{scores[p] * 100:.1f}",
            f"{low_high[0] * 100:.1f}–{low_high[1] * 100:.1f}" if low_high else "–",
            "–" if floor is None else f"{floor * 100:.0f}",
            pct((blocks.get(p) or {}).get("pass_rate")),
        )
    return table


def conversations_table(section: dict[str, Any]) -> Table:
    """Per dimension: how many conversations it applied to and the share of each rating."""
    overall = section.get("overall", {})
    dropped = overall.get("safety_dropped", {})
    table = Table(
        title=f"conversations: {overall.get('n', 0)} graded, safety dropped in {dropped.get('count', 0)}",
        title_justify="left",
    )
    for column in ("dimension", "rated", "best practice", "suboptimal", "high potential for harm"):
        table.add_column(column, justify="left" if column == "dimension" else "right")
    for name, row in section.get("by_dimension", {}).items():
        table.add_row(
            name.replace("_", " "),
            str(row.get("n", "–")),
            *(
                pct(row.get(r, {}).get("rate"))
                for r in ("best_practice", "suboptimal", "high_potential_for_harm")
            ),
        )
    return table


ITEM_FORMATS = {"items-csv": "csv", "parquet": "parquet"}  # --format -> the export endpoint's format


def export(
    evaluation_id: str,
    url: UrlOpt = None,
    key: KeyOpt = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl: every item; csv: aggregates; items-csv or parquet: one row an item, as the API exports.",
        ),
    ] = "jsonl",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact", help="Mask e-mail addresses, phone numbers, street addresses and personal names."
        ),
    ] = False,
) -> None:
    """Export items as JSON Lines (all result pages), one row an item (CSV or Parquet), or the report's aggregates
    as CSV."""
    if fmt not in ("jsonl", "csv", *ITEM_FORMATS):
        typer.echo("error: --format must be jsonl, csv, items-csv or parquet", err=True)
        raise typer.Exit(2)
    with one_line_errors():
        client = connect(url, key)
        if fmt in ITEM_FORMATS:
            binary = output.open("wb") if output else sys.stdout.buffer
            try:
                for chunk in client.export_evaluation(evaluation_id, fmt=ITEM_FORMATS[fmt], redact=redact):
                    binary.write(chunk)
            finally:
                if output:
                    binary.close()
            return
        out = output.open("w", newline="") if output else sys.stdout
        try:
            if fmt == "jsonl":
                for item in client.iter_results(evaluation_id, page_size=1000, redact=redact):
                    out.write(json.dumps(item.model_dump(mode="json"), ensure_ascii=False) + "\n")
            else:
                write_aggregates(out, client.report(evaluation_id))
        finally:
            if output:
                out.close()


def write_aggregates(out: Any, body: dict[str, Any]) -> None:
    """One CSV row per group of every by_* section, after the overall row."""
    writer = csv.writer(out)
    writer.writerow(
        [
            "section",
            "group",
            "n_items",
            "graded",
            "passed",
            "pass_rate",
            "interval_low",
            "interval_high",
            "mean_score",
        ]
    )
    writer.writerow(aggregate_row("overall", "all", body.get("overall", {})))
    for section in [k for k, v in body.items() if k.startswith("by_") and isinstance(v, dict)]:
        for group, row in body[section].items():
            if isinstance(row, dict) and "pass_rate" in row:
                writer.writerow(aggregate_row(section.removeprefix("by_"), group, row))


def aggregate_row(section: str, group: str, row: dict[str, Any]) -> list[Any]:
    lo, hi = row.get("interval") or (None, None)
    return [
        section,
        group,
        row.get("n_items"),
        row.get("n"),
        row.get("passed"),
        row.get("pass_rate"),
        lo,
        hi,
        mean_of(row),
    ]
