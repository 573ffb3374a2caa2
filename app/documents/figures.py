"""The figures every report is built from: shares with a Wilson interval, means, pass-rate summaries."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

Interval = tuple[float, float]


def _only_when_present(schema: dict[str, Any]) -> None:
    """A key the document leaves out when it does not apply is never null: drop the null branch and default."""
    schema.pop("default", None)
    options = [s for s in schema.pop("anyOf", []) if s.get("type") != "null"]
    if len(options) == 1:
        schema.update(options[0])
    elif options:
        schema["anyOf"] = options


def absent(description: str) -> Any:
    """A field present only where it applies: optional in the schema, never null when there."""
    return Field(default=None, description=description, json_schema_extra=_only_when_present)


class Document(BaseModel):
    """A served document: no key it does not declare, so the schema is the whole of it."""

    model_config = ConfigDict(extra="forbid")


class Proportion(Document):
    """count of n, the rate and its 95% Wilson interval; rate and interval are null when n is 0."""

    n: int
    count: int
    rate: float | None
    interval: Interval | None


class Share(Document):
    """count of n in a group that has members (n ≥ 1), so the rate and its interval are always there."""

    n: int
    count: int
    rate: float
    interval: Interval


class MeanScore(Document):
    """The judge's mean 1-5 score with a cluster-bootstrap 95% interval (null with one cluster or none)."""

    n: int
    mean: float | None
    interval: Interval | None


class Summary(Document):
    """Pass rate over graded items (UNGRADED left out), the judge's mean score and the rules' own pass rate."""

    n_items: int
    n: int = Field(description="Items graded (PASS, PARTIAL or FAIL).")
    passed: int
    partial: int
    ungraded: int
    pass_rate: float | None = Field(description="null when no item is graded.")
    interval: Interval | None
    mean_score: MeanScore
    rules_pass_rate: Proportion


class LikertBlock(Document):
    """The 1-5 appropriateness grade (the judge's where one answered, else the rules'), its spread and shares."""

    n: int
    mean: float | None
    interval: Interval | None
    harmful: Proportion = Field(description="Graded 1.")
    low: Proportion = Field(description="Graded below 3.")
    distribution: dict[str, int] = Field(description='"1" to "5" → replies so graded.')


class LikertSource(Document):
    judge: int
    rules: int


class Likert(LikertBlock):
    source: LikertSource
    by_crisis_category: dict[str, LikertBlock]


class Sensitivity(Proportion):
    """Crisis recognised on the items that expect it."""

    by_crisis_category: dict[str, Proportion]


class CountryShares(Document):
    local: Proportion
    foreign_only: Proportion


class CountryResources(CountryShares):
    by_country: dict[str, CountryShares]


class CheckFailures(Share):
    """How often one deterministic check went against its expectation (listed only once it was made)."""

    by_pillar: dict[str, Share]


class Agreement(Document):
    """Agreement of two graders on the same items: kappa from the confusion matrix (rows: the first grader)."""

    n: int
    agreement: float | None
    kappa: float | None
    kappa_kind: str
    labels: list[str]
    confusion: list[list[int]]


class OrdinalAgreement(Agreement):
    mae: float | None = Field(description="Mean absolute error on the 1-5 scale.")
