"""The `judges` and `grader` sections: how far a panel's judges agree, with the rules and with people."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.documents.figures import Agreement, Document, OrdinalAgreement, absent


class JudgeCount(Document):
    judge: int = Field(description="The judge's place in the panel, from 0.")
    n_scored: int
    n_unusable: int


class PanelAgreement(Document):
    alpha: float | None = Field(description="Krippendorff's alpha (ordinal); null when not measured.")
    level: Literal["ordinal"]
    n_items: int
    n_judges: int
    by_judge: list[JudgeCount]
    reason: str | None = Field(description="Why alpha is not measured; null when it is.")


class SplitItem(Document):
    key: str
    scenario: str
    scores: list[float | None] = Field(description="Each judge's score; null: no usable answer.")
    spread: float


class Disagreements(Document):
    threshold: float
    n: int
    items: list[SplitItem]
    more: int = Field(description="Split items counted but not listed.")


class RulesVsJudge(Document):
    """On items with both grades, the rules' 1-5 grade against the judges'; only n and reason when none has."""

    n: int
    kappa: float | None
    mae: float | None
    buckets: Agreement | None = Field(description="Agreement on the verdicts the grades imply.")
    reason: str | None
    agreement: float | None = absent("Raw agreement on the 1-5 scale (when measured).")
    kappa_kind: str | None = absent("When measured.")
    labels: list[str] | None = absent("When measured.")
    confusion: list[list[int]] | None = absent("When measured.")


class JudgeOutcome(Document):
    judge: int
    scored: int
    refused: int
    unavailable: int
    unanswered: int
    unparseable: int


class JudgeOutcomes(Document):
    by_judge: list[JudgeOutcome]
    reasons: list[str]


class JudgesSection(Document):
    panel: PanelAgreement
    disagreements: Disagreements
    rules_vs_judge: RulesVsJudge
    outcomes: JudgeOutcomes


class GraderSection(Document):
    """Which kind of grade the figures are, and where its agreement with people is measured."""

    method: Literal["rules", "judge", "panel"]
    n_items: int
    n_judged: int
    n_judges: int
    validity: str
    note: str | None = absent("A caveat: rules only, or items a judge did not answer.")


class Calibration(Document):
    """The service's grades against the labels people sent for this evaluation."""

    n_labelled: int
    checks: dict[str, Agreement]
    verdict: Agreement
    judge_score: OrdinalAgreement
