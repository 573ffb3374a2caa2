"""`helmbench watch`: an evaluation's progress until it ends, as a live bar on a terminal or as log lines in CI."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from app.cli.connect import KeyOpt, UrlOpt, connect, one_line_errors
from app.client import HelmbenchClient

PollOpt = Annotated[bool, typer.Option("--poll", help="Poll the status instead of streaming events.")]
IntervalOpt = Annotated[float, typer.Option(help="Seconds between polls with --poll.")]
EveryOpt = Annotated[
    float,
    typer.Option(
        "--every",
        min=0.0,
        help="Not on a terminal (CI logs): seconds between progress lines (0: each change).",
    ),
]


@dataclass(frozen=True)
class Tick:
    """One look at the run, from the event stream or a status poll (which has no pass rate nor error classes)."""

    status: str
    total: int
    done: int
    failed: int
    pass_rate: float | None = None
    errors_by_class: dict[str, int] = field(default_factory=dict)


def streamed(client: HelmbenchClient, evaluation_id: str) -> Iterator[Tick]:
    for e in client.events(evaluation_id):
        yield Tick(e.status, e.total, e.done, e.failed, e.pass_rate, e.errors_by_class)


def polled(client: HelmbenchClient, evaluation_id: str, interval: float) -> Iterator[Tick]:
    for e in client.follow(evaluation_id, interval=interval):
        yield Tick(e.status, e.progress.total, e.progress.done, e.progress.failed)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def errors_text(tick: Tick) -> str:
    """The count of items that ended in an error, with its classes when the source gives them.

    The count is the run's own `failed`: a status poll carries no classes, and reading "none" off an empty
    breakdown hid every error of a polled run.
    """
    if not tick.failed:
        return "none"
    classes = ", ".join(f"{k} {n}" for k, n in sorted(tick.errors_by_class.items()))
    return f"{tick.failed}" + (f" ({classes})" if classes else "")


def eta_text(started: float, first_done: int, tick: Tick) -> str:
    """Time left at the pace seen since watching began; blank until an item finished while watching."""
    finished = tick.done - first_done
    if finished <= 0 or not tick.total or tick.done >= tick.total:
        return ""
    left = (tick.total - tick.done) * (time.monotonic() - started) / finished
    return f", ETA {int(left // 60)}m{int(left % 60):02d}s"


def as_lines(ticks: Iterator[Tick], evaluation_id: str, console: Console, every: float) -> Tick | None:
    """One line per `every` seconds (and the first state at once): a CI log shows the run moving."""
    last: Tick | None = None
    started, first_done, printed = time.monotonic(), 0, float("-inf")
    for tick in ticks:
        if last is None:
            first_done = tick.done
        last = tick
        if time.monotonic() - printed >= every:
            printed = time.monotonic()
            console.print(
                f"{evaluation_id} {tick.status}: {tick.done}/{tick.total} items, pass rate "
                f"{pct(tick.pass_rate)}, errors {errors_text(tick)}{eta_text(started, first_done, tick)}",
                highlight=False,
                soft_wrap=True,
            )
    return last


def as_bar(ticks: Iterator[Tick], evaluation_id: str, console: Console) -> Tick | None:
    """A live bar with ETA, running pass rate and errors, redrawn in place."""
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("pass {task.fields[pass_rate]}"),
        TextColumn("errors {task.fields[errors]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    last: Tick | None = None
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(evaluation_id, total=None, pass_rate="–", errors=0)
        for last in ticks:
            bar.update(
                task,
                total=last.total or None,
                completed=last.done,
                pass_rate=pct(last.pass_rate),
                errors=last.failed,
                description=f"{evaluation_id} {last.status}",
            )
    return last


def follow(
    client: HelmbenchClient,
    evaluation_id: str,
    console: Console,
    poll: bool = False,
    interval: float = 1.0,
    every: float = 5.0,
) -> Tick | None:
    """Show progress until the run ends (a bar on a terminal, lines otherwise), print a summary line, and
    return the last state (None if the server sent none)."""
    ticks = polled(client, evaluation_id, interval) if poll else streamed(client, evaluation_id)
    last = (
        as_bar(ticks, evaluation_id, console)
        if console.is_terminal
        else as_lines(ticks, evaluation_id, console, every)
    )
    if last is None:
        console.print(f"{evaluation_id}: no progress received")
        return None
    console.print(
        f"{evaluation_id} {last.status}: {last.done}/{last.total} items, "
        f"pass rate {pct(last.pass_rate)}, errors: {errors_text(last)}",
        highlight=False,
        soft_wrap=True,
    )
    return last


def watch(
    evaluation_id: str,
    url: UrlOpt = None,
    key: KeyOpt = None,
    poll: PollOpt = False,
    interval: IntervalOpt = 1.0,
    every: EveryOpt = 5.0,
) -> None:
    """Follow an evaluation to its end (a live bar, or a line every few seconds in CI); exit 1 unless it
    succeeded."""
    with one_line_errors():
        last = follow(connect(url, key), evaluation_id, Console(), poll, interval, every)
    if last is None or last.status != "succeeded":
        raise typer.Exit(1)
