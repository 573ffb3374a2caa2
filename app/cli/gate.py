"""`helmbench gate`: evaluate an endpoint and turn the result into a release decision a CI job can act on.

Exit 0: every gate condition held. Exit 1: the endpoint failed one (headline score below --min-score, or,
against a baseline, a drop beyond --max-drop in the headline score, a pillar's pass rate, sensitivity,
over-escalation or country resources that /v1/compare's paired test, Holm-adjusted over those metrics, finds
significant). Exit 2: no decision could be made (bad arguments, the service unreachable, the evaluation failed or
was cancelled), so a pipeline can tell "the model got worse" from "the check itself broke". Conditions are named
in the report's words (app/scoring/vocabulary.py): a score is a score, a pass rate a pass rate.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console
from rich.table import Table

from app.cli.compare import fetch_compare
from app.cli.connect import CliError, KeyOpt, UrlOpt, connect, one_line_errors
from app.cli.report import catalogue_names
from app.cli.submit import (
    BaseUrlOpt,
    ModelOpt,
    RepeatsOpt,
    SuiteOpt,
    TargetChoice,
    TargetFileOpt,
    TargetIdOpt,
    TargetKeyOpt,
    TargetNameOpt,
    start_evaluation,
)
from app.cli.watch import EveryOpt, IntervalOpt, PollOpt, follow
from app.client import ApiError, HelmbenchClient
from app.scoring.vocabulary import band_text, metric_label

GATE_FAILED, CANNOT_RUN = 1, 2
Status = Literal["passed", "failed", "untested"]


@dataclass(frozen=True)
class Watched:
    """A /v1/compare metric the gate guards, and which way is better."""

    metric: str
    higher_is_better: bool = True


# Each is tested by /v1/compare item by item (paired.by_metric), the family Holm-adjusted together: the same
# tests regressions use, so a gate and a schedule's alert agree on what counts as a significant drop.
WATCHED = (
    Watched("headline"),
    Watched("sensitivity"),
    Watched("over_escalation", higher_is_better=False),
    Watched("false_alarms_on_controls", higher_is_better=False),
    Watched("local_resource"),
    Watched("foreign_resource_only", higher_is_better=False),
)


@dataclass(frozen=True)
class Condition:
    """One line of the verdict table and one JUnit testcase."""

    name: str
    value: str
    threshold: str
    p_value: float | None
    status: Status
    message: str
    metric: str = ""  # the /v1/compare metric a drop condition guards; '' for the score's minimum


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def score_condition(headline: float | None, min_score: float) -> Condition:
    """The headline score must reach --min-score; a run that scored nothing cannot pass. Said on both scales:
    the option's 0–1 and the 0–100 the report prints."""
    name = f"headline score ≥ {min_score:.3f}"
    if headline is None:
        return Condition(name, "–", fmt(min_score), None, "failed", "no headline score: nothing was graded")
    ok = headline >= min_score
    verb = "meets" if ok else "is below"
    return Condition(
        name,
        fmt(headline),
        fmt(min_score),
        None,
        "passed" if ok else "failed",
        f"headline score {headline:.3f} ({headline * 100:.1f} of 100, band {band_text(headline)}) {verb} the "
        f"minimum {min_score:.3f}",
    )


def dig(body: dict[str, Any], path: tuple[str, ...]) -> Any:
    for part in path:
        body = body.get(part) if isinstance(body, dict) else None  # type: ignore[assignment]
    return body


def watched_metrics(comparison: dict[str, Any]) -> list[Watched]:
    """The fixed metrics plus one row per pillar the comparison reports."""
    pillars = sorted(m for m in comparison.get("metrics", {}) if m.startswith("pillar:"))
    return [*WATCHED, *(Watched(p) for p in pillars)]


def drop_condition(
    comparison: dict[str, Any],
    watched: Watched,
    max_drop: float,
    alpha: float,
    names: dict[str, str] | None = None,
) -> Condition:
    """Fails only when the metric worsened by more than max_drop AND its paired test, Holm-adjusted with the
    others, says it is not chance. Named in words: `pillar:P1` is P1's pass rate, not its score."""
    test = dig(comparison, ("paired", "by_metric", watched.metric))
    # The values the test compared (over the paired items), so the figure shown is the figure tested; the
    # reports' values where no test was made.
    row = test if isinstance(test, dict) else comparison.get("metrics", {}).get(watched.metric) or {}
    base, now = row.get("a"), row.get("b")
    p = test.get("p_adjusted") if isinstance(test, dict) else None
    direction = "" if watched.higher_is_better else " (lower is better)"
    label = metric_label(watched.metric, names)
    name = f"{label} drop ≤ {max_drop:.3f}{direction}"
    value = f"{fmt(base)} → {fmt(now)}"
    if base is None or now is None:
        return Condition(
            name, value, fmt(max_drop), p, "untested", f"{label}: not measured in both runs", watched.metric
        )
    drop = (base - now) if watched.higher_is_better else (now - base)
    figures = f"{label} {base:.3f} → {now:.3f} (drop {drop:+.3f}, allowed {max_drop:.3f}"
    if drop <= max_drop + 1e-9:
        return Condition(name, value, fmt(max_drop), p, "passed", f"{figures})", watched.metric)
    if p is None:
        message = f"{figures}; no paired test, so not gated)"
        return Condition(name, value, fmt(max_drop), None, "untested", message, watched.metric)
    if p < alpha:
        message = f"{figures}; significant, Holm-adjusted p={p:.4f} < {alpha})"
        return Condition(name, value, fmt(max_drop), p, "failed", message, watched.metric)
    message = f"{figures}; not significant, Holm-adjusted p={p:.4f} ≥ {alpha})"
    return Condition(name, value, fmt(max_drop), p, "passed", message, watched.metric)


def conditions(
    headline: float | None,
    comparison: dict[str, Any] | None,
    min_score: float,
    max_drop: float,
    alpha: float,
    names: dict[str, str] | None = None,
) -> list[Condition]:
    """Every gate condition for one run: the score's minimum, then the drops against the baseline if any."""
    out = [score_condition(headline, min_score)]
    if comparison is not None:
        out += [drop_condition(comparison, w, max_drop, alpha, names) for w in watched_metrics(comparison)]
    return out


STYLE = {"passed": "[green]pass[/]", "failed": "[bold red]FAIL[/]", "untested": "[yellow]not gated[/]"}


def verdict_table(evaluation_id: str, baseline: str | None, rows: list[Condition]) -> Table:
    title = f"gate for {evaluation_id}" + (f" vs baseline {baseline}" if baseline else "")
    table = Table(title=title, title_justify="left")
    for column in ("condition", "value", "threshold", "p (Holm)", "verdict"):
        table.add_column(column, justify="left" if column in ("condition", "verdict") else "right")
    for c in rows:
        table.add_row(
            c.name, c.value, c.threshold, "–" if c.p_value is None else f"{c.p_value:.4f}", STYLE[c.status]
        )
    return table


def junit_xml(suite_name: str, rows: list[Condition], error: str | None = None) -> ET.ElementTree:
    """One <testsuite>, a <testcase> per condition: <failure> for a failed one, <skipped> for one not gated,
    and a single <error> testcase when the gate could not run at all."""
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name=suite_name)
    for c in rows:
        case = ET.SubElement(suite, "testcase", classname="helmbench.gate", name=c.name)
        if c.metric:  # the metric's stable key, for a CI job that matches on it rather than on words
            ET.SubElement(ET.SubElement(case, "properties"), "property", name="metric", value=c.metric)
        if c.status == "failed":
            ET.SubElement(case, "failure", message=c.message, type="GateFailure").text = c.message
        elif c.status == "untested":
            ET.SubElement(case, "skipped", message=c.message)
        else:
            ET.SubElement(case, "system-out").text = c.message
    if error is not None:
        case = ET.SubElement(suite, "testcase", classname="helmbench.gate", name="evaluation ran")
        ET.SubElement(case, "error", message=error, type="CannotRun").text = error
    counts = {
        "tests": len(rows) + (error is not None),
        "failures": sum(c.status == "failed" for c in rows),
        "errors": int(error is not None),
        "skipped": sum(c.status == "untested" for c in rows),
    }
    for element in (root, suite):
        element.attrib.update({k: str(v) for k, v in counts.items()})
    tree = ET.ElementTree(root)
    ET.indent(tree)
    return tree


def write_junit(path: Path | None, suite_name: str, rows: list[Condition], error: str | None = None) -> None:
    if path is not None:
        junit_xml(suite_name, rows, error).write(path, encoding="utf-8", xml_declaration=True)


def check_baseline(client: HelmbenchClient, baseline: str) -> None:
    """Refuse, before a run is spent, a baseline that is not there, has no result to compare, or ran another
    benchmark version than the server runs now (its items could not pair with the new run's)."""
    try:
        evaluation = client.get_evaluation(baseline)
    except ApiError as exc:
        if exc.status == 404:
            raise CliError(f"--baseline: no evaluation {baseline!r} in this team") from None
        raise
    if evaluation.status not in ("succeeded", "stopped_by_budget"):
        raise CliError(
            f"--baseline: {baseline} is {evaluation.status}; a baseline must have finished with results"
        )
    version = client.benchmark().get("version")
    if version and evaluation.benchmark_version != version:
        raise CliError(
            f"--baseline: {baseline} ran benchmark version {evaluation.benchmark_version}, the server now runs "
            f"{version}; items only pair within one version"
        )


def compare_with(client: HelmbenchClient, baseline: str, evaluation_id: str) -> dict[str, Any]:
    """/v1/compare of the baseline (its `a`) and the new run; a refusal about `a` names the option it came from."""
    try:
        return fetch_compare(client, baseline, evaluation_id)
    except ApiError as exc:
        if exc.field == "a":
            raise CliError(f"--baseline: {exc.detail.removeprefix('a: ')}") from None
        raise


def gate(
    url: UrlOpt = None,
    key: KeyOpt = None,
    target_id: TargetIdOpt = None,
    target_file: TargetFileOpt = None,
    name: TargetNameOpt = None,
    base_url: BaseUrlOpt = None,
    model: ModelOpt = None,
    api_key: TargetKeyOpt = None,
    suite: SuiteOpt = None,
    repeats: RepeatsOpt = None,
    min_score: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Fail below this headline score, on 0–1 (0.8 is 80 on the report's 0–100)."
        ),
    ] = 0.8,
    baseline: Annotated[
        str | None, typer.Option(help="An earlier evaluation to compare with (same benchmark version).")
    ] = None,
    max_drop: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Largest drop allowed against the baseline, per metric: score or pass rate, on 0–1.",
        ),
    ] = 0.02,
    alpha: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="A drop counts when its paired p-value is below this.")
    ] = 0.05,
    junit: Annotated[Path | None, typer.Option(help="Write a JUnit XML report here for CI.")] = None,
    poll: PollOpt = False,
    interval: IntervalOpt = 1.0,
    every: EveryOpt = 5.0,
) -> None:
    """Evaluate a target and gate a release on it: exit 0 passed, 1 failed the gate, 2 could not run."""
    console = Console()
    suite_name = "helmbench gate"
    with one_line_errors(CANNOT_RUN):
        try:
            client = connect(url, key)
            if baseline:
                check_baseline(client, baseline)
            target = TargetChoice(target_id, target_file, name, base_url, model, api_key)
            evaluation_id = start_evaluation(client, target, suite, repeats)
            suite_name = f"helmbench gate {evaluation_id}"
            state = follow(client, evaluation_id, console, poll, interval, every)
            status = state.status if state else "with no progress received"
            if status != "succeeded":
                raise CliError(f"evaluation {evaluation_id} ended {status}; no verdict")
            report = client.report(evaluation_id)
            comparison = compare_with(client, baseline, evaluation_id) if baseline else None
            names = catalogue_names(client) if comparison is not None else {}
        except (CliError, ApiError) as exc:
            write_junit(junit, suite_name, [], error=str(exc))
            raise
    rows = conditions(report.get("headline", {}).get("score"), comparison, min_score, max_drop, alpha, names)
    console.print(verdict_table(evaluation_id, baseline, rows))
    if comparison is not None and "by_metric" not in comparison.get("paired", {}):
        console.print(
            "[yellow]the server computed no paired tests: drops are shown but none can fail the gate[/]"
        )
    write_junit(junit, suite_name, rows)
    failed = [c for c in rows if c.status == "failed"]
    if failed:
        console.print(f"[bold red]gate FAILED[/]: {len(failed)} of {len(rows)} conditions")
        for c in failed:
            console.print(f"  - {c.message}")
        raise typer.Exit(GATE_FAILED)
    console.print(f"[green]gate passed[/]: {len(rows)} conditions")
