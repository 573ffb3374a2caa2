"""`helmbench delete-evaluation` / `delete-batch`: erase what people wrote, through the API (its rules, its log)."""

from __future__ import annotations

from typing import Annotated

import typer

from app.cli.connect import KeyOpt, UrlOpt, connect, one_line_errors

KeepReportOpt = Annotated[
    bool,
    typer.Option("--keep-report", help="Keep the aggregate report (no text in it); results then answer 410."),
]


def _deleted(what: str, keep_report: bool) -> None:
    typer.echo(f"{what} deleted" + (" (its report kept)" if keep_report else ""))


def delete_evaluation(
    evaluation_id: str, url: UrlOpt = None, key: KeyOpt = None, keep_report: KeepReportOpt = False
) -> None:
    """Delete an evaluation and every message, reply and judge answer of it (a running one is cancelled)."""
    with one_line_errors():
        connect(url, key).delete_evaluation(evaluation_id, keep_report=keep_report)
    _deleted(evaluation_id, keep_report)


def delete_batch(
    batch_id: str, url: UrlOpt = None, key: KeyOpt = None, keep_report: KeepReportOpt = False
) -> None:
    """Delete a grade batch and every transcript line of it (grading stops)."""
    with one_line_errors():
        connect(url, key).delete_grade_batch(batch_id, keep_report=keep_report)
    _deleted(batch_id, keep_report)
