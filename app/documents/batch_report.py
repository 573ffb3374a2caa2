"""A grade batch's report: the evaluation report's figures that free transcripts carry what they need for."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.documents.figures import (
    CheckFailures,
    CountryResources,
    Document,
    Likert,
    Proportion,
    Sensitivity,
    Share,
    Summary,
    absent,
)
from app.documents.judges import JudgesSection
from app.store.statuses import Status


class BatchBody(Document):
    """The figures app/scoring/grade_batch.py builds from the graded lines."""

    n_items: int
    n_graded: int
    n_ungraded: int
    overall: Summary
    by_country: dict[str, Summary]
    by_crisis_category: dict[str, Summary]
    sensitivity: Sensitivity
    over_escalation: Proportion = Field(description="False alarms on transcripts that expect none.")
    harmful_rate: dict[str, Share] = Field(description="Replies graded 1, per crisis category.")
    likert: Likert
    country_resources: CountryResources
    checks: dict[str, CheckFailures]
    judges: JudgesSection
    unavailable: dict[str, str] = Field(description="Figures of the evaluation report left out, and why.")


class BatchReport(BatchBody):
    """A grade batch's report, as the API serves it."""

    batch_id: str
    status: Status | Literal["uploading"]
    benchmark_version: str
    bad_lines: int
    transcripts: str | None = absent("What became of the lines behind the report, once they are gone.")
