"""`helmbench evaluations list|cancel`, `targets list` and `leaderboard`: what a team has, and the public board."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from app.cli.connect import KeyOpt, UrlOpt, connect, one_line_errors
from app.cli.watch import pct
from app.schemas import EvaluationPublic, LeaderboardEntry
from app.scoring.vocabulary import labelled

evaluations_app = typer.Typer(help="Your team's evaluations: list, cancel.", no_args_is_help=True)
targets_app = typer.Typer(help="Your team's targets.", no_args_is_help=True)


def _wide() -> Console:
    """Tables of ids: a line too long for the terminal stays one line rather than wrapping an id in two."""
    return Console(soft_wrap=True)


def evaluations_table(rows: list[EvaluationPublic]) -> Table:
    table = Table(title_justify="left")
    for column in ("id", "status", "target", "model", "suite", "done", "errors", "created"):
        table.add_column(column, justify="right" if column in ("done", "errors") else "left", no_wrap=True)
    for e in rows:
        table.add_row(
            e.id,
            e.status,
            e.target_name,
            e.model,
            e.suite,
            f"{e.progress.done}/{e.progress.total}",
            str(e.progress.failed),
            e.created_at.strftime("%Y-%m-%d %H:%M"),
        )
    return table


@evaluations_app.command("list")
def list_evaluations(
    url: UrlOpt = None,
    key: KeyOpt = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help="Evaluations per page, newest first.")] = 20,
    cursor: Annotated[
        str | None, typer.Option(help="Start at this page (a `next` the last list printed).")
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Every page, not just one.")] = False,
) -> None:
    """List the team's evaluations, newest first (the API filters by page only: cursor and limit)."""
    with one_line_errors():
        client = connect(url, key)
        if every:
            rows, next_cursor = list(client.iter_evaluations(page_size=limit)), None
        else:
            page = client.list_evaluations(cursor=cursor, limit=limit)
            rows, next_cursor = page.items, page.next_cursor
    _wide().print(evaluations_table(rows))
    if next_cursor:
        typer.echo(f"more: --cursor {next_cursor}")


@evaluations_app.command("cancel")
def cancel_evaluation(evaluation_id: str, url: UrlOpt = None, key: KeyOpt = None) -> None:
    """Ask a queued or running evaluation to stop; items already written are kept."""
    with one_line_errors():
        evaluation = connect(url, key).cancel_evaluation(evaluation_id)
    typer.echo(
        f"{evaluation_id}: cancel requested ({evaluation.status}, {evaluation.progress.done} items done)"
    )


@targets_app.command("list")
def list_targets(url: UrlOpt = None, key: KeyOpt = None) -> None:
    """List the team's targets (secrets show only as whether they are set)."""
    with one_line_errors():
        targets = connect(url, key).list_targets()
    table = Table(title_justify="left")
    for column in ("id", "name", "kind", "model", "base url", "version", "key"):
        table.add_column(column, no_wrap=True)
    for t in targets:
        table.add_row(
            t.id, t.name, t.kind, t.model, t.base_url, str(t.version), "set" if t.has_api_key else "–"
        )
    _wide().print(table)


def pillar_cell(entry: LeaderboardEntry, pillar: str) -> str:
    """A pillar's score out of 100; a pass rate standing in for it keeps its % and says so."""
    value = entry.pillars.get(pillar)
    if value is None:
        return "–"
    basis = entry.pillar_basis.get(pillar)
    return f"{pct(value)} ({basis})" if basis else f"{value * 100:.1f}"


def leaderboard_table(
    entries: list[LeaderboardEntry], version: str, pillar_names: dict[str, str] | None = None
) -> Table:
    """The board as the page shows it: the score out of 100 with its band and the quality beside it, the pass
    rate with %, each pillar's score under its name."""
    pillars = sorted({p for e in entries for p in e.pillars})
    table = Table(title=f"leaderboard · benchmark {version}", title_justify="left")
    columns = ("#", "target", "model", "suite", "score /100 (95%)", "band", "quality /100", "pass rate (95%)")
    table.caption = "pillar scores /100: " + " · ".join(labelled(p, pillar_names or {}) for p in pillars)
    table.caption_justify = "left"
    for column in (*columns, *pillars, "items", "grader", "why"):
        numeric = column in ("#", "items", "quality /100") or column in pillars
        width = max([len(e.target_name) for e in entries] or [6]) if column == "target" else None
        table.add_column(
            column, justify="right" if numeric else "left", no_wrap=column != "why", min_width=width
        )
    for e in entries:
        interval = e.score_interval
        table.add_row(
            str(e.rank),
            e.target_name,
            e.model,
            e.suite,
            f"{e.score_100:.1f}"
            + (f" ({interval[0] * 100:.1f}–{interval[1] * 100:.1f})" if interval else "")
            + (" [red]capped[/]" if e.capped else ""),
            e.band,
            "–" if e.quality_100 is None else f"{e.quality_100:.1f}",
            "–"
            if e.pass_rate is None
            else f"{pct(e.pass_rate)}"
            + (
                f" ({pct(e.pass_rate_interval[0])}–{pct(e.pass_rate_interval[1])})"
                if e.pass_rate_interval
                else ""
            ),
            *(pillar_cell(e, p) for p in pillars),
            str(e.n_items),
            e.grader or "–",
            e.why or "",
        )
    return table


def leaderboard(
    url: UrlOpt = None,
    suite: Annotated[str | None, typer.Option(help="Only evaluations of this suite.")] = None,
    country: Annotated[str | None, typer.Option(help="Only items of users in this country.")] = None,
    condition: Annotated[str | None, typer.Option(help="Only items under this condition.")] = None,
    benchmark_version: Annotated[str | None, typer.Option(help="Another benchmark version's board.")] = None,
    sort: Annotated[
        str | None, typer.Option(help="score, pass_rate, model, n_items, finished or pillar:<id>.")
    ] = None,
    order: Annotated[str | None, typer.Option(help="asc or desc.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, max=1000, help="Entries to show.")] = None,
) -> None:
    """The public leaderboard (no key needed): names, scores and pass rates with their 95% intervals."""
    filters = {
        "suite": suite,
        "country": country,
        "condition": condition,
        "benchmark_version": benchmark_version,
        "sort": sort,
        "order": order,
    }
    with one_line_errors():
        board = connect(url, None, need_key=False).leaderboard(
            limit=limit, **{k: v for k, v in filters.items() if v is not None}
        )
    _wide().print(leaderboard_table(board.entries, board.benchmark_version, board.pillar_names))
    if board.hidden:
        typer.echo(f"{board.hidden} evaluation(s) have no item in that country or condition")
