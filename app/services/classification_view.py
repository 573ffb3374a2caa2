"""What the report page shows of a classify suite: headline figures and the confusion matrix as table rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.scoring.board import Rate


@dataclass(frozen=True)
class MatrixRow:
    label: str  # the authored category, for reading ("suicidal ideation")
    cells: list[int]  # answered as each category, then outside the label set
    recall: Rate
    precision: Rate


@dataclass(frozen=True)
class ClassificationView:
    n_items: int
    n_answered: int
    n_errors: int
    accuracy: Rate
    kappa: Rate
    outside: Rate
    columns: list[str]
    rows: list[MatrixRow]

    @property
    def column_totals(self) -> list[int]:
        return [sum(row.cells[i] for row in self.rows) for i in range(len(self.columns))]


def _readable(label: str) -> str:
    return label.replace("_", " ")


def classification_view(report: dict[str, Any]) -> ClassificationView | None:
    """The page's view of a report's `classification` section; None for a report without one."""
    section = report.get("classification")
    if not section:
        return None
    matrix = section["confusion"]
    kappa = section["kappa"]
    low, high = kappa.get("interval") or (None, None)
    per = section["per_category"]
    return ClassificationView(
        n_items=int(section["n_items"]),
        n_answered=int(section["n_answered"]),
        n_errors=int(section["n_errors"]),
        accuracy=Rate.of(section["accuracy"], "rate"),
        kappa=Rate(kappa.get("value"), low, high, int(kappa.get("n") or 0)),
        outside=Rate.of(section["outside"], "rate"),
        columns=[_readable(c) for c in matrix["columns"]],
        rows=[
            MatrixRow(
                _readable(label),
                [int(n) for n in cells],
                Rate.of(per[label]["recall"], "rate"),
                Rate.of(per[label]["precision"], "rate"),
            )
            for label, cells in zip(matrix["rows"], matrix["cells"], strict=True)
        ],
    )
