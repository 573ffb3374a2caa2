"""`helmbench grade FILE.jsonl`: grade free transcripts from a file, no server needed; prints JSONL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer

from app.config import Settings


def grade(
    file: Path = typer.Argument(
        ...,
        exists=True,
        dir_okay=False,
        readable=True,
        help="One JSON transcript per line: {country, crisis_expected, crisis_category?, messages, reply}.",
    ),
) -> None:
    """Grade each line with every check and, if HELMBENCH_JUDGE_*/_JUDGES is set, the judges; prints JSONL."""
    asyncio.run(_grade_file(file, Settings()))


async def _grade_file(file: Path, settings: Settings) -> None:
    from app.benchmark.loader import LibraryError, load_library
    from app.grading.checks import CHECKS
    from app.grading.grader import Grader, judge_configs_from_settings
    from app.problems import Problem
    from app.services.grading import parse_transcript_line, result_of

    try:
        library = load_library(settings.data_dir, known_checks=CHECKS.keys())
    except LibraryError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    failed = 0
    async with Grader.with_judges(
        library.countries, judge_configs_from_settings(settings), max_reply_bytes=settings.max_reply_bytes
    ) as grader:
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    request = parse_transcript_line(line)
                    result = result_of(await grader.grade_transcript(request))
                    typer.echo(json.dumps({"line": number, **result.model_dump()}, ensure_ascii=False))
                except Problem as exc:
                    failed += 1
                    typer.echo(json.dumps({"line": number, "error": exc.detail, "field": exc.field}))
    if failed:
        typer.echo(f"{failed} line(s) could not be graded", err=True)
        raise typer.Exit(1)
