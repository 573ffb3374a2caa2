"""`helmbench submit`: start an evaluation, registering its target first when it is new.

The target and suite options are shared with `helmbench gate`, which starts its run the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from app.cli.connect import CliError, KeyOpt, UrlOpt, connect, one_line_errors
from app.client import ApiError, HelmbenchClient

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


def find_or_create_target(client: HelmbenchClient, spec: dict[str, Any]) -> str:
    """Reuse the team's target with the same name, URL and model; otherwise register it."""
    wanted = (spec.get("name"), str(spec.get("base_url", "")).rstrip("/"), spec.get("model"))
    for target in client.list_targets():
        if (target.name, target.base_url.rstrip("/"), target.model) == wanted:
            return target.id
    return client.create_target(spec).id


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
        client = connect(url, key)
        target = TargetChoice(target_id, target_file, name, base_url, model, api_key)
        caps = Caps(max_calls, max_tokens)
        simulator = SimulatorChoice(simulator_url, simulator_model, simulator_key, turn_cap)
        typer.echo(start_evaluation(client, target, suite, repeats, public, idempotency_key, caps, simulator))


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
    client: HelmbenchClient,
    target: TargetChoice,
    suite: str | None = None,
    repeats: int | None = None,
    public: bool = False,
    idempotency_key: str | None = None,
    caps: Caps = Caps(),
    simulator: SimulatorChoice = SimulatorChoice(),
) -> str:
    """POST /v1/evaluations for the chosen target (registered first if new); returns the evaluation id.

    A refusal of a value the user gave as an option names that option, not the API's field."""
    spec, options = read_target_file(target.target_file) if target.target_file else ({}, {})
    fields = {
        "name": target.name,
        "base_url": target.base_url,
        "model": target.model,
        "api_key": target.api_key,
    }
    spec.update({k: v for k, v in fields.items() if v is not None})
    chosen = {"suite": suite, "repeats": repeats, "max_calls": caps.max_calls, "max_tokens": caps.max_tokens}
    given = {k for k, v in {**fields, **chosen, "target_id": target.target_id}.items() if v is not None}
    with options_named(given):
        target_id = target.target_id
        if target_id is None:
            missing = [f for f in ("name", "base_url", "model") if not spec.get(f)]
            if missing:
                raise CliError(f"--{missing[0].replace('_', '-')} is required without --target-id")
            target_id = find_or_create_target(client, spec)
        body = {"target_id": target_id, **options}
        body.update({k: v for k, v in chosen.items() if v is not None})
        if public:
            body["visibility"] = "public"
        if (sim := simulator.body()) is not None:
            body["simulator"] = sim
        return client.start_evaluation(body, idempotency_key=idempotency_key).id


@contextmanager
def options_named(given: set[str]) -> Iterator[None]:
    """An API refusal of a field the user set by option becomes `--option: detail`."""
    try:
        yield
    except ApiError as exc:
        if exc.field not in given:
            raise
        field = exc.field
        raise CliError(f"--{field.replace('_', '-')}: {exc.detail.removeprefix(f'{field}: ')}") from None
