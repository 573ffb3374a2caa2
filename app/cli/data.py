"""`helmbench data`: validate the library, print its statistics, export its JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from app.config import Settings

data_app = typer.Typer(
    help="The benchmark library (HELMBENCH_DATA_DIR, else benchmark_data/ of the install).",
    no_args_is_help=True,
)


def _load(path: Path | None):  # type: ignore[no-untyped-def]
    from app.benchmark.loader import LibraryError, load_library
    from app.grading.checks import CHECKS

    try:
        return load_library(path or Settings().data_dir, known_checks=CHECKS.keys())
    except LibraryError as exc:
        typer.echo(f"invalid: {exc}", err=True)
        raise typer.Exit(1) from exc


@data_app.command("validate")
def validate(
    path: Path | None = typer.Argument(
        None, help="Data folder (default: HELMBENCH_DATA_DIR, else the library the package ships)."
    ),
) -> None:
    """Load and cross-check every file; exit 1 with the file and field at fault."""
    from app.services.catalogue import stats

    library = _load(path)
    s = stats(library)
    typer.echo(
        f"ok: {library.version}: {s['scenarios']} scenarios, {s['perturbations']} perturbations, "
        f"{s['items_full']} full-suite items, {s['conversation_scripts']} conversation scripts"
    )


@data_app.command("stats")
def stats_cmd(
    path: Path | None = typer.Argument(None), as_json: bool = typer.Option(False, "--json")
) -> None:
    """Counts of every part of the library and of each suite."""
    from app.services.catalogue import stats

    s = stats(_load(path))
    if as_json:
        typer.echo(json.dumps(s))
        return
    for key, value in s.items():
        typer.echo(f"{key}: {value}")


@data_app.command("docs")
def docs_cmd(
    out: Path = typer.Option(Path("docs/benchmark.md"), help="Where to write the catalogue."),
) -> None:
    """Regenerate docs/benchmark.md from the library."""
    from app.benchmark.docs import render_benchmark_doc

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_benchmark_doc(_load(None)), encoding="utf-8")
    typer.echo(f"wrote {out}")


@data_app.command("schema")
def schema_cmd(out: Path = typer.Option(Path("docs/benchmark.schema.json"))) -> None:
    """Export the JSON Schema of benchmark_data files for contributors' editors."""
    from app.benchmark.docs import library_json_schema

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(library_json_schema(), indent=2) + "\n", encoding="utf-8")
    typer.echo(f"wrote {out}")
