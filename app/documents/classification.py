"""The `classification` section of a classify suite's report: answers against the authored labels."""

from __future__ import annotations

from pydantic import Field

from app.documents.figures import Document, Interval, Proportion


class Accuracy(Proportion):
    """Answers that matched the authored label, with a cluster-bootstrap interval."""


class Kappa(Document):
    value: float | None
    interval: Interval | None
    n: int
    kind: str


class CategoryScores(Document):
    authored: int
    answered: int
    precision: Proportion
    recall: Proportion


class Confusion(Document):
    rows: list[str] = Field(description="Authored labels.")
    columns: list[str] = Field(description="Answered labels, then outside the label set.")
    cells: list[list[int]]


class Outside(Proportion):
    by_reason: dict[str, int]


class ClassificationSection(Document):
    n_items: int
    n_answered: int
    n_errors: int
    accuracy: Accuracy
    kappa: Kappa
    per_category: dict[str, CategoryScores]
    confusion: Confusion
    outside: Outside
