"""`helmbench grade FILE.jsonl`: grade free transcripts from a file; prints JSONL.

Without --url the file is graded here, no server needed; with --url it is uploaded as a grade batch (streamed,
so a file of any size), graded by the server's workers, and the results are downloaded when it finishes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from app.cli.connect import CliError, KeyOpt, connect, one_line_errors
from app.client import HelmbenchClient
from app.config import Settings
from app.schemas import GradeBatchPublic

UPLOAD_CHUNK_BYTES = 256 * 1024
POLL_S = 0.5


def grade(
    file: Path = typer.Argument(
        ...,
        exists=True,
        dir_okay=False,
        readable=True,
        help="One JSON transcript per line: {country, crisis_expected, crisis_category?, messages, reply}.",
    ),
    url: Annotated[
        str | None, typer.Option("--url", help="Grade on this server as a batch (default: grade here).")
    ] = None,
    key: KeyOpt = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="With --url: write the results here, not stdout.")
    ] = None,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            help="Mask e-mail addresses, phone numbers (crisis lines kept), street addresses and personal names "
            "before grading (with --url: before the server stores a line).",
        ),
    ] = False,
) -> None:
    """Grade each line with every check and, if HELMBENCH_JUDGE_*/_JUDGES is set, the judges; prints JSONL."""
    if url is None:
        asyncio.run(_grade_file(file, Settings(), redact))
        return
    with one_line_errors():
        _grade_remotely(connect(url, key, timeout=120.0), file, output, redact)


def _chunks(file: Path) -> Iterator[bytes]:
    with file.open("rb") as handle:
        while chunk := handle.read(UPLOAD_CHUNK_BYTES):
            yield chunk


def _grade_remotely(client: HelmbenchClient, file: Path, output: Path | None, redact: bool = False) -> None:
    """Upload, watch the progress on stderr, then write each result and each refused line as JSONL."""
    batch = client.submit_grade_batch(_chunks(file), redact=redact)
    typer.echo(f"batch {batch.id}: {batch.lines} lines uploaded, {batch.bad} refused", err=True)
    status = _watch(client, batch.id)
    if status.status != "succeeded":
        raise CliError(f"batch {batch.id} {status.status}: {status.error or 'no detail'}")
    sink = output.open("w", encoding="utf-8") if output else None
    try:
        for line in client.export_grade_batch(batch.id, redact=redact):
            typer.echo(line, file=sink)
        for bad in client.iter_grade_batch_errors(batch.id):
            typer.echo(json.dumps(bad.model_dump()), file=sink)
    finally:
        if sink:
            sink.close()
    typer.echo(
        f"{status.graded} graded, {status.bad} refused of {status.lines} lines"
        + (f"; results in {output}" if output else ""),
        err=True,
    )
    if status.bad:
        raise typer.Exit(1)


def _watch(client: HelmbenchClient, batch_id: str) -> GradeBatchPublic:
    """The batch's progress on stderr, a line per change, until every line is graded or refused."""
    last = None
    for status in client.follow_grade_batch(batch_id, interval=POLL_S):
        progress = (status.graded, status.lines - status.bad)
        if progress != last:
            typer.echo(f"graded {progress[0]}/{progress[1]}", err=True)
            last = progress
    return status


async def _grade_file(file: Path, settings: Settings, redact: bool = False) -> None:
    from app.benchmark.loader import LibraryError, load_library
    from app.errors import DomainError
    from app.grading.checks import CHECKS
    from app.grading.grader import Grader
    from app.grading.result import result_of
    from app.runner.judging import default_judges
    from app.services.grading import parse_transcript_line
    from app.services.redaction import redact_transcript, redactor_for

    try:
        library = load_library(settings.data_dir, known_checks=CHECKS.keys())
    except LibraryError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    redactor = redactor_for(library) if redact else None
    failed = 0
    async with Grader.with_judges(
        library.countries, default_judges(settings), max_reply_bytes=settings.max_reply_bytes
    ) as grader:
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    request = parse_transcript_line(line)
                    if redactor is not None:
                        request, _ = redact_transcript(request, redactor)
                    result = result_of(await grader.grade_transcript(request))
                    typer.echo(json.dumps({"line": number, **result.model_dump()}, ensure_ascii=False))
                except DomainError as exc:
                    failed += 1
                    typer.echo(json.dumps({"line": number, "error": exc.detail, "field": exc.field}))
    if failed:
        typer.echo(f"{failed} line(s) could not be graded", err=True)
        raise typer.Exit(1)
