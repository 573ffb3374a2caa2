"""`helmbench delete-evaluation` / `delete-batch`: erase what people wrote, through the API (its rules, its log)."""

from __future__ import annotations

from typing import Annotated

import typer

from app.cli.client import Api, KeyOpt, UrlOpt, one_line_errors

KeepReportOpt = Annotated[
    bool,
    typer.Option("--keep-report", help="Keep the aggregate report (no text in it); results then answer 410."),
]


def _delete(path: str, what: str, url: str | None, key: str | None, keep_report: bool) -> None:
    with one_line_errors():
        Api(url, key).request("DELETE", path, params={"keep_report": str(keep_report).lower()})
    typer.echo(f"{what} deleted" + (" (its report kept)" if keep_report else ""))


def delete_evaluation(
    evaluation_id: str, url: UrlOpt = None, key: KeyOpt = None, keep_report: KeepReportOpt = False
) -> None:
    """Delete an evaluation and every message, reply and judge answer of it (a running one is cancelled)."""
    _delete(f"/v1/evaluations/{evaluation_id}", evaluation_id, url, key, keep_report)


def delete_batch(
    batch_id: str, url: UrlOpt = None, key: KeyOpt = None, keep_report: KeepReportOpt = False
) -> None:
    """Delete a grade batch and every transcript line of it (grading stops)."""
    _delete(f"/v1/grade/batches/{batch_id}", batch_id, url, key, keep_report)
