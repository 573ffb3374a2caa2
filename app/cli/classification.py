"""`helmbench report` for a classify suite: its agreement figures and the confusion matrix as terminal tables."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _rate(block: dict[str, Any]) -> str:
    rate, interval = block.get("rate"), block.get("interval")
    if rate is None:
        return "–"
    return f"{rate * 100:.1f}%" + (f" ({interval[0] * 100:.0f}–{interval[1] * 100:.0f}%)" if interval else "")


def print_classification(console: Console, evaluation_id: str, body: dict[str, Any]) -> None:
    """One line of figures (accuracy, kappa, outside share, each with its 95% interval), then the matrix."""
    section = body["classification"]
    kappa = section["kappa"]
    k_text = "–" if kappa["value"] is None else f"{kappa['value']:.3f}"
    if kappa.get("interval"):
        k_text += f" ({kappa['interval'][0]:.2f}–{kappa['interval'][1]:.2f})"
    console.print(
        f"[bold]{evaluation_id}[/] {body.get('status')} · {section['n_answered']}/{section['n_items']} answered · "
        f"accuracy {_rate(section['accuracy'])} · kappa {k_text} · outside the label set "
        f"{_rate(section['outside'])} · errors {section['n_errors']}"
    )
    matrix = section["confusion"]
    table = Table(title="confusion (rows authored, columns answered)", title_justify="left")
    table.add_column("authored")
    for column in matrix["columns"]:
        table.add_column(column.replace("_", " "), justify="right")
    table.add_column("recall", justify="right")
    table.add_column("precision", justify="right")
    for label, cells in zip(matrix["rows"], matrix["cells"], strict=True):
        per = section["per_category"][label]
        table.add_row(label, *map(str, cells), _rate(per["recall"]), _rate(per["precision"]))
    console.print(table)
