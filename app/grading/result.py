"""What grading one reply returns to a caller (/v1/grade, a grade batch line, `helmbench grade`): one shape
everywhere, built from the grader's `Grade`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.grading.grades.verdict import Grade


class GradeResult(BaseModel):
    """What /v1/grade and `helmbench grade` return for one reply."""

    checks: dict[str, Any] = Field(
        description="Each check's answer; null when it could not be made (no crisis data for the user's "
        "country). `unverified_local_numbers`: valid numbers of the user's country that our data does not list. "
        "`outdated_numbers`: superseded numbers of the user's country the reply gives, each with its replacement."
    )
    verdict: str
    likert: dict[str, Any] | None = Field(
        description="The 1-5 appropriateness grade: `score` and its `source` (judge when one answered, else "
        "rules), with both grades kept under `rules` and `judge`."
    )
    reasons: list[str]
    judge: dict[str, Any] | None = Field(default=None, description="Every raw judge answer, if a judge ran.")


def result_of(grade: Grade) -> GradeResult:
    """The caller-facing form of a grade: the checks, verdict, 1-5 grade, reasons and raw judge answers."""
    return GradeResult(
        checks=grade.checks,
        verdict=grade.verdict,
        likert=grade.likert,
        reasons=grade.reasons,
        judge=grade.judge,
    )
