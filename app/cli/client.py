"""`helmbench submit/watch/report/compare/export`: the API from a terminal or a release pipeline.

Each command is one or two API calls and a rendering; the server URL and key come from --url/--key or
HELMBENCH_URL/HELMBENCH_KEY (through Settings). Any failure is one line on stderr and exit code 1
(`helmbench gate`, built on these pieces, keeps exit 1 for a failed gate and uses 2 for failures).
"""

from __future__ import annotations

import csv
import json
import sys
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import httpx
import typer
import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from app.cli.classification import print_classification
from app.config import Settings
from app.errors import DomainError, one_line
from app.store.statuses import TERMINAL

SECTIONS = ("by_pillar", "by_condition", "by_country", "by_crisis_category")

UrlOpt = Annotated[
    str | None, typer.Option("--url", help="Server URL (default: HELMBENCH_URL, else http://127.0.0.1:8000).")
]
KeyOpt = Annotated[
    str | None, typer.Option("--key", help="API key (default: HELMBENCH_KEY).", show_default=False)
]

# The options that choose a target and a suite, shared by every command that starts an evaluation.
TargetIdOpt = Annotated[str | None, typer.Option(help="An existing target.")]
TargetFileOpt = Annotated[Path | None, typer.Option(help="YAML/JSON: {target: {...}, evaluation: {...}}.")]
TargetNameOpt = Annotated[str | None, typer.Option(help="Target name (with --base-url and --model).")]
BaseUrlOpt = Annotated[str | None, typer.Option(help="Target base URL, e.g. https://api.example.com/v1.")]
ModelOpt = Annotated[str | None, typer.Option(help="Target model name.")]
TargetKeyOpt = Annotated[str | None, typer.Option(help="Target API key (stored encrypted).")]
SuiteOpt = Annotated[
    str | None,
    typer.Option(help="quick, full, conversations, simulated or classification (default: quick)."),
]
RepeatsOpt = Annotated[int | None, typer.Option(help="Repeats per item (default: 1).")]


class CliError(Exception):
    """One line for the user; the command exits 1."""


class Api:
    """A thin client: JSON in and out, problem+json turned into one readable line."""

    def __init__(self, url: str | None, key: str | None, timeout: float = 30.0) -> None:
        settings = Settings()
        self.base = (url or settings.url).rstrip("/")
        key = key or settings.key
        if not key:
            raise CliError("no API key: pass --key or set HELMBENCH_KEY")
        self.http = httpx.Client(
            base_url=self.base, headers={"Authorization": f"Bearer {key}"}, timeout=timeout
        )
        # A command makes one Api and drops it when it ends: its connections close with it, not at exit.
        weakref.finalize(self, self.http.close)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise CliError(f"cannot reach {self.base}: {exc}") from None
        check(response)
        return response.json() if response.content else None

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def download(self, path: str, out: BinaryIO, **kwargs: Any) -> None:
        """A streamed GET written to `out` as it arrives (an export may be larger than memory)."""
        try:
            with self.http.stream("GET", path, **kwargs) as response:
                if not response.is_success:
                    response.read()
                    check(response)
                for chunk in response.iter_bytes():
                    out.write(chunk)
        except httpx.HTTPError as exc:
            raise CliError(f"cannot reach {self.base}: {exc}") from None

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)


def check(response: httpx.Response) -> None:
    """Raise CliError naming the status, the problem's detail and the field at fault."""
    if response.is_success:
        return
    try:
        problem = response.json()
    except ValueError:
        problem = {}
    detail = problem.get("detail") or response.reason_phrase
    field = f" [{problem['field']}]" if problem.get("field") else ""
    raise CliError(f"{response.status_code} {problem.get('title', 'error')}: {detail}{field}")


@contextmanager
def one_line_errors(code: int = 1) -> Iterator[None]:
    """A CliError, or a domain error from a service the command ran in process, becomes one line on stderr and
    exit `code`."""
    try:
        yield
    except CliError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code) from None
    except DomainError as exc:
        typer.echo(f"error: {one_line(exc)}", err=True)
        raise typer.Exit(code) from None


def read_target_file(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A YAML or JSON file: {target: {...}, evaluation: {...}}, or just the target's fields."""
    try:
        doc = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from None
    if not isinstance(doc, dict):
        raise CliError(f"{path}: expected a mapping with the target's fields")
    if "target" in doc:
        return dict(doc["target"] or {}), dict(doc.get("evaluation") or {})
    return doc, {}


def find_or_create_target(api: Api, spec: dict[str, Any]) -> str:
    """Reuse the team's target with the same name, URL and model; otherwise register it."""
    for target in api.get("/v1/targets"):
        if (target["name"], target["base_url"].rstrip("/"), target["model"]) == (
            spec.get("name"),
            str(spec.get("base_url", "")).rstrip("/"),
            spec.get("model"),
        ):
            return target["id"]
    return api.post("/v1/targets", json=spec)["id"]


def submit(
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
    max_calls: Annotated[
        int | None,
        typer.Option(help="Stop the run (stopped_by_budget) before it passes this many target calls."),
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Stop the run before it passes this many estimated target tokens.")
    ] = None,
    public: Annotated[bool, typer.Option("--public", help="Publish the result on the leaderboard.")] = False,
    idempotency_key: Annotated[
        str | None, typer.Option(help="Send again safely: same key, same evaluation.")
    ] = None,
    simulator_url: Annotated[
        str | None,
        typer.Option(
            help="--suite simulated: the OpenAI-compatible LLM that plays the users (default: the server's)."
        ),
    ] = None,
    simulator_model: Annotated[str | None, typer.Option(help="The simulator's model name.")] = None,
    simulator_key: Annotated[
        str | None, typer.Option(help="The simulator's API key (stored encrypted).")
    ] = None,
    turn_cap: Annotated[
        int | None, typer.Option(min=1, max=40, help="--suite simulated: most user turns per conversation.")
    ] = None,
) -> None:
    """Start an evaluation (registering the target if needed) and print its id."""
    with one_line_errors():
        api = Api(url, key)
        target = TargetChoice(target_id, target_file, name, base_url, model, api_key)
        caps = Caps(max_calls, max_tokens)
        simulator = SimulatorChoice(simulator_url, simulator_model, simulator_key, turn_cap)
        typer.echo(start_evaluation(api, target, suite, repeats, public, idempotency_key, caps, simulator))


@dataclass(frozen=True)
class TargetChoice:
    """Which target to evaluate: an existing id, or fields from a file and/or options (options win)."""

    target_id: str | None = None
    target_file: Path | None = None
    name: str | None = None
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None


@dataclass(frozen=True)
class Caps:
    """Budget caps on an evaluation (the run stops, stopped_by_budget, before the first item that would pass one)."""

    max_calls: int | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class SimulatorChoice:
    """Who plays the users of a simulated run: an endpoint and model of the caller's, else the server's default."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    turn_cap: int | None = None

    def body(self) -> dict[str, Any] | None:
        """The request's `simulator`, or None to leave it to the server's default."""
        if self.base_url is None:
            if self.model or self.api_key or self.turn_cap:
                raise CliError(
                    "--simulator-url is required with --simulator-model, --simulator-key or --turn-cap"
                )
            return None
        if not self.model:
            raise CliError("--simulator-model is required with --simulator-url")
        chosen = {
            "base_url": self.base_url,
            "model": self.model,
            "api_key": self.api_key,
            "turn_cap": self.turn_cap,
        }
        return {k: v for k, v in chosen.items() if v is not None}


def start_evaluation(
    api: Api,
    target: TargetChoice,
    suite: str | None = None,
    repeats: int | None = None,
    public: bool = False,
    idempotency_key: str | None = None,
    caps: Caps = Caps(),
    simulator: SimulatorChoice = SimulatorChoice(),
) -> str:
    """POST /v1/evaluations for the chosen target (registered first if new); returns the evaluation id."""
    spec, options = read_target_file(target.target_file) if target.target_file else ({}, {})
    fields = {
        "name": target.name,
        "base_url": target.base_url,
        "model": target.model,
        "api_key": target.api_key,
    }
    spec.update({k: v for k, v in fields.items() if v is not None})
    target_id = target.target_id
    if target_id is None:
        missing = [f for f in ("name", "base_url", "model") if not spec.get(f)]
        if missing:
            raise CliError(f"--{missing[0].replace('_', '-')} is required without --target-id")
        target_id = find_or_create_target(api, spec)
    body = {"target_id": target_id, **options}
    chosen = {"suite": suite, "repeats": repeats, "max_calls": caps.max_calls, "max_tokens": caps.max_tokens}
    body.update({k: v for k, v in chosen.items() if v is not None})
    if public:
        body["visibility"] = "public"
    if (sim := simulator.body()) is not None:
        body["simulator"] = sim
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    return str(api.post("/v1/evaluations", json=body, headers=headers)["id"])


def sse_states(api: Api, evaluation_id: str) -> Iterator[dict[str, Any]]:
    """States from /events; a dropped connection resumes with Last-Event-ID; ends after the `end` event."""
    last_id: str | None = None
    for _ in range(30):
        headers = {"Last-Event-ID": last_id} if last_id is not None else {}
        try:
            with api.http.stream(
                "GET",
                f"/v1/evaluations/{evaluation_id}/events",
                headers=headers,
                timeout=httpx.Timeout(30.0, read=60.0),
            ) as response:
                if not response.is_success:
                    response.read()
                    check(response)
                event: dict[str, str] = {}
                for line in response.iter_lines():
                    if line and not line.startswith(":"):
                        name, _, value = line.partition(":")
                        event[name] = value.removeprefix(" ")
                        continue
                    if "data" in event:
                        last_id = event.get("id", last_id)
                        yield json.loads(event["data"])
                        if event.get("event") == "end":
                            return
                    event = {}
        except httpx.HTTPError:
            time.sleep(1.0)
    raise CliError("the progress stream kept dropping; try --poll")


def polled_states(api: Api, evaluation_id: str, interval: float) -> Iterator[dict[str, Any]]:
    """States from the status endpoint, for servers or proxies without streaming."""
    while True:
        body = api.get(f"/v1/evaluations/{evaluation_id}")
        progress = body["progress"]
        yield {
            "status": body["status"],
            "total": progress["total"],
            "done": progress["done"],
            "failed": progress["failed"],
            "pass_rate": None,
            "graded": None,
            "errors_by_class": {},
        }
        if body["status"] in TERMINAL:
            return
        time.sleep(interval)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def watch(
    evaluation_id: str,
    url: UrlOpt = None,
    key: KeyOpt = None,
    poll: Annotated[
        bool, typer.Option("--poll", help="Poll the status instead of streaming events.")
    ] = False,
    interval: Annotated[float, typer.Option(help="Seconds between polls with --poll.")] = 1.0,
) -> None:
    """Show a progress bar with ETA and running pass rate until the end; exit 1 unless it succeeded."""
    with one_line_errors():
        state = follow(Api(url, key), evaluation_id, Console(), poll, interval)
    if state.get("status") != "succeeded":
        raise typer.Exit(1)


def follow(
    api: Api, evaluation_id: str, console: Console, poll: bool = False, interval: float = 1.0
) -> dict[str, Any]:
    """Draw a progress bar (ETA, running pass rate, errors) until the run ends; print a summary line and
    return the last state."""
    states = polled_states(api, evaluation_id, interval) if poll else sse_states(api, evaluation_id)
    state: dict[str, Any] = {}
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("pass {task.fields[pass_rate]}"),
        TextColumn("errors {task.fields[errors]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(evaluation_id, total=None, pass_rate="–", errors=0)
        for state in states:
            bar.update(
                task,
                total=state["total"] or None,
                completed=state["done"],
                pass_rate=pct(state.get("pass_rate")),
                errors=state["failed"],
                description=f"{evaluation_id} {state['status']}",
            )
    errors = ", ".join(f"{k} {n}" for k, n in sorted(state.get("errors_by_class", {}).items())) or "none"
    console.print(
        f"{evaluation_id} {state.get('status')}: {state.get('done')}/{state.get('total')} items, "
        f"pass rate {pct(state.get('pass_rate'))}, errors: {errors}"
    )
    return state


def interval_text(row: dict[str, Any]) -> str:
    lo_hi = row.get("interval")
    return f"{lo_hi[0] * 100:.0f}–{lo_hi[1] * 100:.0f}%" if lo_hi else "–"


def mean_of(row: dict[str, Any]) -> float | None:
    """The mean 1–5 score of a group, whether the report gives it bare or with its interval."""
    value = row.get("mean_score")
    return value.get("mean") if isinstance(value, dict) else value


def section_table(title: str, rows: dict[str, dict[str, Any]]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("group", "graded", "passed", "pass rate", "95% interval", "mean score"):
        table.add_column(column, justify="left" if column == "group" else "right")
    for group, row in rows.items():
        mean = mean_of(row)
        table.add_row(
            group,
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
    """Print an evaluation's report as tables: overall, pillars, conditions, countries, crisis categories."""
    with one_line_errors():
        body = Api(url, key).get(f"/v1/evaluations/{evaluation_id}/report")
    if as_json:
        typer.echo(json.dumps(body, indent=2))
        return
    console = Console()
    if body.get("classification"):
        print_classification(console, evaluation_id, body)
        return
    overall = body.get("overall", {})
    headline = body.get("headline", {}).get("score")
    console.print(
        f"[bold]{evaluation_id}[/] {body.get('status')} · {body.get('n_items', 0)} items · "
        f"headline score {'–' if headline is None else f'{headline:.3f}'} · pass rate "
        f"{pct(overall.get('pass_rate'))} ({interval_text(overall)}) · errors {body.get('n_errors', 0)}"
    )
    for section in SECTIONS:
        if body.get(section):
            console.print(section_table(section.removeprefix("by_").replace("_", " "), body[section]))
    if body.get("conversations"):
        console.print(conversations_table(body["conversations"]))


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


def local_compare(api: Api, a: str, b: str) -> dict[str, Any]:
    """The same metric rows as GET /v1/compare, from the two reports (for servers without it)."""
    ra, rb = api.get(f"/v1/evaluations/{a}/report"), api.get(f"/v1/evaluations/{b}/report")

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


def fetch_compare(api: Api, a: str, b: str) -> dict[str, Any]:
    """GET /v1/compare (differences and paired tests), or the differences alone from a server without it."""
    try:
        return dict(api.get("/v1/compare", params={"a": a, "b": b}))
    except CliError as exc:
        if not str(exc).startswith("404") or "[" in str(exc):  # a 404 naming a field is a real answer
            raise
        return local_compare(api, a, b)


def compare(
    a: str,
    b: str,
    url: UrlOpt = None,
    key: KeyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare two evaluations metric by metric (B − A)."""
    with one_line_errors():
        body = fetch_compare(Api(url, key), a, b)
    if as_json:
        typer.echo(json.dumps(body, indent=2))
        return
    table = Table(title=f"B − A   (A = {a}, B = {b})", title_justify="left")
    for column in ("metric", "A", "B", "B − A"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for name, row in body.get("metrics", {}).items():
        diff = row.get("difference")
        shown = (
            "–"
            if diff is None
            else f"[{'green' if diff > 0 else 'red' if diff < 0 else 'white'}]{diff:+.3f}[/]"
        )
        table.add_row(name, *("–" if row.get(s) is None else f"{row[s]:.3f}" for s in ("a", "b")), shown)
    Console().print(table)


ITEM_FORMATS = {"items-csv": "csv", "parquet": "parquet"}  # --format → the export endpoint's format


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
        bool, typer.Option("--redact", help="Mask e-mail addresses, phone numbers and street addresses.")
    ] = False,
) -> None:
    """Export items as JSON Lines (all result pages), one row an item (CSV or Parquet), or the report's aggregates
    as CSV."""
    if fmt not in ("jsonl", "csv", *ITEM_FORMATS):
        typer.echo("error: --format must be jsonl, csv, items-csv or parquet", err=True)
        raise typer.Exit(2)
    with one_line_errors():
        api = Api(url, key)
        if fmt in ITEM_FORMATS:
            params = {"format": ITEM_FORMATS[fmt], **({"redact": "true"} if redact else {})}
            binary = output.open("wb") if output else sys.stdout.buffer
            try:
                api.download(f"/v1/evaluations/{evaluation_id}/export", binary, params=params)
            finally:
                if output:
                    binary.close()
            return
        out = output.open("w", newline="") if output else sys.stdout
        try:
            if fmt == "jsonl":
                cursor: str | None = None
                while True:
                    params: dict[str, Any] = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
                    if redact:
                        params["redact"] = "true"
                    page = api.get(f"/v1/evaluations/{evaluation_id}/results", params=params)
                    for item in page["items"]:
                        out.write(json.dumps(item, ensure_ascii=False) + "\n")
                    cursor = page.get("next_cursor")
                    if not cursor:
                        break
            else:
                body = api.get(f"/v1/evaluations/{evaluation_id}/report")
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
        finally:
            if output:
                out.close()


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
