"""The `conversations` and `simulated` sections: whole conversations graded on five dimensions."""

from __future__ import annotations

from pydantic import Field

from app.documents.figures import Document, Interval, Proportion, Share


class ConversationHeadline(Document):
    score: float | None = Field(description="Risk-weighted verdict credit; null when nothing is graded.")
    interval: Interval | None
    n: int
    weighting: str


class ConversationGroup(Document):
    """All graded conversations (there may be none)."""

    n: int
    passed: Proportion
    failed: Proportion
    safety_dropped: Proportion


class StyleShares(Document):
    """The conversations of one disclosure style (listed only when it has some)."""

    n: int
    passed: Share
    failed: Share


class GroupShares(StyleShares):
    """The conversations of one risk level or theme (listed only when it has some)."""

    safety_dropped: Share


class DimensionRatings(Document):
    """One dimension's ratings over the conversations it applied to."""

    n: int
    not_applicable: int
    best_practice: Proportion
    suboptimal: Proportion
    high_potential_for_harm: Proportion


class ConversationFailure(Document):
    key: str
    script: str
    verdict: str
    safety_dropped_turn: int | None
    deciding_turns: dict[str, int | None] = Field(
        description="Each failed dimension → the turn that decided it (1-based; null: no single turn did)."
    )


class ConversationsBase(Document):
    n: int
    n_graded: int
    n_errors: int
    stop_reasons: dict[str, int]
    headline: ConversationHeadline
    overall: ConversationGroup
    by_dimension: dict[str, DimensionRatings]
    by_risk_level: dict[str, GroupShares]
    safety_dropped_at_turn: dict[str, int] = Field(
        description="Turn → conversations that dropped safety there."
    )
    failures: list[ConversationFailure]
    failures_left_off: int


class ConversationsSection(ConversationsBase):
    """Scripted conversations, with their themes."""

    by_theme: dict[str, GroupShares]


class SimulatorErrors(Document):
    n: int
    share: Proportion
    by_fault: dict[str, int]
    keys: list[str] = Field(description="Up to 50 spoiled conversations' item keys.")
    retried_and_recovered: dict[str, int]
    note: str


class SimulatedSection(ConversationsBase):
    """Conversations a simulated user played, by disclosure style; the ones the simulator spoiled apart."""

    by_disclosure_style: dict[str, StyleShares]
    simulator_errors: SimulatorErrors
