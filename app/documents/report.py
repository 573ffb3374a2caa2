"""An evaluation's report: the matrix report (single replies, scripted or simulated conversations) or, for a
classify suite, the classification report. app/scoring/report.py builds both."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from app.documents.classification import ClassificationSection
from app.documents.conversations import ConversationsSection, SimulatedSection
from app.documents.figures import (
    CheckFailures,
    CountryResources,
    Document,
    Interval,
    Likert,
    Proportion,
    Sensitivity,
    Share,
    Summary,
    absent,
)
from app.documents.judges import Calibration, GraderSection, JudgesSection
from app.store.statuses import Status


class Floor(Document):
    floor: float
    score: float | None = Field(description="The component's score; null when the run measured none.")
    breached: bool
    factor: float | None


class BehaviorScore(Document):
    score: float
    weight: int


# No nulls: FastAPI leaves None out of the description it serves, which would break the example.
HEADLINE_EXAMPLE = {
    "score": 0.8412,
    "interval": [0.7012, 0.9334],
    "quality": 0.7353,
    "weighting": "quality = weighted mean of behaviour scores (…); all floors held: 0.40 + 0.60 × quality; …",
    "checks_only_share": 0.0,
    "floors": {
        "P1": {"floor": 0.7, "score": 0.875, "breached": False, "factor": 1.0},
        "P2": {"floor": 0.5, "score": 0.62, "breached": False, "factor": 1.0},
        "restraint": {"floor": 0.7, "score": 1.0, "breached": False, "factor": 1.0},
    },
    "capped": False,
    "restraint": 1.0,
    "pillars": {"P1": 0.875, "P4": 1.0},
    "pillar_intervals": {"P1": [0.75, 0.95], "P4": [1.0, 1.0]},
    "behaviors": {"P1-B1": {"score": 0.875, "weight": 12}, "P4-B1": {"score": 1.0, "weight": 5}},
    "why": "All safety floors hold; weakest behaviour P1-B1 0.88.",
}


class Headline(Document):
    """The headline score with its 95% interval, the components it is made of and one line on why."""

    model_config = ConfigDict(json_schema_extra={"examples": [HEADLINE_EXAMPLE]})

    score: float | None = Field(description="null when nothing was scored.")
    interval: Interval | None
    quality: float | None
    weighting: str
    checks_only_share: float | None
    floors: dict[str, Floor]
    capped: bool = Field(description="A safety floor was breached: the score sits below 0.40.")
    restraint: float | None
    pillars: dict[str, float]
    pillar_intervals: dict[str, Interval] = Field(
        description="Per pillar with a score, its 95% interval from the headline's bootstrap."
    )
    behaviors: dict[str, BehaviorScore]
    why: str


class FullSensitivity(Sensitivity):
    by_signal: dict[str, Proportion] = Field(description="direct or indirect disclosures.")
    by_severity: dict[str, Proportion]
    by_condition: dict[str, Proportion]


class OverEscalation(Proportion):
    """False alarms on the false-positive battery; all_controls: on every item that expects no alarm."""

    all_controls: Proportion
    by_scenario: dict[str, Proportion]


class PseudoAlignment(Proportion):
    by_behavior: dict[str, Proportion]


class ConditionGap(Document):
    n: int
    baseline_pass_rate: float
    pass_rate: float
    gap: float
    interval: Interval | None
    mcnemar_p: float


class PersonaRobustness(Document):
    baseline: str | None
    worst_condition: str | None
    gap: float | None
    interval: Interval | None
    by_condition: dict[str, ConditionGap]


class LikertGap(Document):
    n: int
    gap: float | None
    interval: Interval | None


class CounterfactualGap(Document):
    pairs: list[str]
    n: int
    original_pass_rate: float | None
    twin_pass_rate: float | None
    gap: float | None
    interval: Interval | None
    mcnemar_p: float
    likert: LikertGap


class SustainedSafety(Summary):
    by_tier: dict[str, Summary]


class WorstOfK(Proportion):
    k: int = Field(description="The most repeats a cell had.")
    flaky: Proportion


class Tier(Summary):
    alarm: Proportion


class Rung(Proportion):
    risk_level: int
    user_context: str


class Dip(Document):
    below: str
    rung: str


class Ladder(Document):
    persona: str
    levels: list[Rung]
    threshold: int | None = Field(description="The lowest risk level from which every rung detects.")
    dips: list[Dip]


class EvaluationFields(Document):
    """What the API adds to the body the scoring builds: whose report it is, and its labels' calibration."""

    evaluation_id: str
    status: Status
    calibration: Calibration | None = Field(description="null until people label some of its items.")
    transcripts: str | None = absent("What became of the text behind the report, once it is gone.")


class ReportBody(Document):
    report_version: int
    benchmark_version: str
    n_items: int
    n_errors: int
    error_share: float | None = Field(description="null when the run has no item.")
    notes: list[str] = Field(description="Plain-language caveats.")


class MatrixBody(ReportBody):
    """The report of a suite of replies or conversations, as app/scoring/report.py builds it."""

    n_graded: int
    n_ungraded: int
    ungraded_share: float | None
    headline: Headline
    overall: Summary
    by_pillar: dict[str, Summary]
    by_behavior: dict[str, Summary]
    by_scenario: dict[str, Summary]
    by_condition: dict[str, Summary]
    by_user_context: dict[str, Summary]
    by_country: dict[str, Summary]
    by_crisis_category: dict[str, Summary]
    sensitivity: FullSensitivity
    over_escalation: OverEscalation
    pseudo_alignment: PseudoAlignment
    harmful_rate: dict[str, Share] = Field(description="Replies graded 1, per crisis category.")
    likert: Likert
    persona_robustness: PersonaRobustness
    counterfactual_bias: dict[str, CounterfactualGap]
    country_resources: CountryResources
    sustained_safety: SustainedSafety
    worst_of_k: WorstOfK
    tiers: dict[str, Tier]
    ladders: dict[str, Ladder]
    checks: dict[str, CheckFailures]
    judges: JudgesSection
    grader: GraderSection
    conversations: ConversationsSection | None = absent("Runs with scripted conversations.")
    simulated: SimulatedSection | None = absent("Runs of the simulated suite.")


class ClassificationBody(ReportBody):
    """The report of a classify suite: labels, not replies, so no headline."""

    task: Literal["classify"]
    n_answered: int
    classification: ClassificationSection


class MatrixReport(MatrixBody, EvaluationFields):
    """An evaluation's report: replies or conversations."""


class ClassificationReport(ClassificationBody, EvaluationFields):
    """An evaluation's report: a classify suite."""


EvaluationReport = MatrixReport | ClassificationReport
