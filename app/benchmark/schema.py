"""Pydantic models of the benchmark library, as authored in `benchmark_data/*.yaml`.

Every model forbids unknown keys, so a typo in a clinician-reviewed file is an error, not a silent default.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

CrisisCategory = Literal[
    "suicidal_ideation",
    "self_harm",
    "anxiety_crisis",
    "violent_thoughts",
    "substance_abuse_or_withdrawal",
    "risk_taking_behaviours",
    "no_crisis",
]
CRISIS_CATEGORIES: tuple[str, ...] = CrisisCategory.__args__  # type: ignore[attr-defined]

Verdict = Literal["PASS", "PARTIAL", "FAIL"]
LanguageStyle = Literal[
    "standard", "non_native", "slang", "emoji", "code_switching", "idiom", "typos", "terse", "formal"
]
Severity = Annotated[int, Field(ge=-10, le=10)]
LocalId = Annotated[str, StringConstraints(pattern=r"^(C|U|PT)\d+[a-z]?$")]
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_\-]*$")]
CountryCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Behavior(Strict):
    id: Annotated[str, StringConstraints(pattern=r"^P\d-B\d+$")]
    name: str
    summary: str
    rationale: str = Field(description="Why this matters, in MHFA / ASIST terms.")
    weight: int = Field(ge=0, description="Relative weight in the headline score (original scoring.yaml).")
    status: Literal["runnable", "designed"] = "runnable"
    ladder: Slug | None = Field(
        default=None,
        description="A persona seen at rising risk levels in every scenario of this behaviour, so the report can "
        "draw detection by level and where the model starts to notice (the original's Michel ladder).",
    )


class Pillar(Strict):
    id: Annotated[str, StringConstraints(pattern=r"^P\d$")]
    name: str
    summary: str
    behaviors: list[Behavior]


class TagSet(Strict):
    """A closed list of routing tags the model may attach to its reply; rendered into the prompt from here."""

    id: Slug
    instructions: str = Field(
        description="How the product asks the model to tag, rendered after the job text."
    )
    tags: dict[str, str] = Field(description="Tag name → the definition shown to the model.")
    max_tags: int = Field(default=5, ge=1)


class Condition(Strict):
    """A deployment context: the system persona a product wraps the model in."""

    id: Slug
    name: str
    kind: Literal[
        "assistant", "expert", "roleplay", "companion", "customer_service", "product_tool", "wellbeing"
    ]
    difficulty: Annotated[int, Field(ge=0, le=10)] = 0
    baseline: bool = Field(
        default=False, description="The plain assistant that persona robustness is measured against."
    )
    original_id: str | None = Field(
        default=None, description="Where the original HELMbench had it, e.g. P1-B1-S1-C3."
    )
    system_prompt: str | None = Field(
        description="None: the bare model. The target gets the user's turns and no system message at all, so no "
        "product job, tag list or user memory either: what a person typing into the raw model would meet."
    )

    @property
    def bare(self) -> bool:
        return self.system_prompt is None


class UserContext(Strict):
    """What a product remembers about the user: a persona at one risk level, plus remembered history."""

    id: Slug
    persona: Slug = Field(description="The same person at several risk levels shares this id.")
    name: str
    age: Annotated[int, Field(ge=13, le=100)]
    gender: str
    culture: str
    language_style: LanguageStyle = "standard"
    country: CountryCode
    city: str
    risk_level: Severity = 0
    groups: list[str] = Field(default_factory=list, description="At-risk groups this persona represents.")
    history: list[str] = Field(default_factory=list, description="Remembered facts, one per line.")
    profile: str = Field(description="First-person self-description the product stored.")
    facts: list[str] = Field(
        default_factory=list,
        description="Life facts the history and profile establish, from the closed list in schema.SENDER_FACTS.",
    )


class Perturbation(Strict):
    """One way a user might write the scenario's message; or, with `turns`, a scripted conversation."""

    id: LocalId
    message: str | None = None
    turns: list[str] | None = Field(default=None, description="User turns of a multi-turn script, in order.")
    crisis_from_turn: int | None = Field(
        default=None, ge=1, description="In a script, the 1-based turn from which the risk is visible."
    )
    severity: Severity
    crisis_category: CrisisCategory
    expects_flag: bool | None = Field(
        default=None,
        description="Whether the routing tag is expected; defaults to crisis_category != no_crisis.",
    )
    flag_optional: bool = Field(
        default=False,
        description="Raising the alarm and not raising it are both clinically defensible: routing passes either "
        "way, and metrics that count misses or false alarms leave the item out. `note` must say why.",
    )
    style: list[LanguageStyle] = Field(default_factory=lambda: ["standard"])
    tier: str | None = Field(default=None, description="A reporting tier, e.g. clearly_delusional.")
    expected_tags: list[str] = Field(
        default_factory=list,
        description="Main-task tags this message should get (original tag_threshold); empty = ungraded.",
    )
    note: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> Perturbation:
        if (self.message is None) == (self.turns is None):
            raise ValueError("give exactly one of 'message' or 'turns'")
        if self.turns is not None and len(self.turns) < 2:
            raise ValueError("'turns' is for scripts of two or more user turns; use 'message' for one")
        if self.flag_optional and not self.note:
            raise ValueError("a flag_optional item needs a note saying why either outcome is defensible")
        return self

    @property
    def user_turns(self) -> list[str]:
        return self.turns if self.turns is not None else [self.message or ""]

    @property
    def flag_expected(self) -> bool:
        return self.expects_flag if self.expects_flag is not None else self.crisis_category != "no_crisis"


class Check(Strict):
    """A deterministic check and what its outcome must be for the item to pass."""

    check: str = Field(description="Name of a function in app.grading.checks.")
    expect: bool = True
    when: Literal["always", "flag_expected", "flag_not_expected"] = "always"
    on_fail: Literal["FAIL", "PARTIAL"] = "FAIL"
    reason: str = Field(description="Shown to the user when the check fails.")


class Routing(Strict):
    """The tag-based expectation of the original HELMbench (list_includes / tag_threshold)."""

    tag_set: Slug
    flag_tag: str = Field(
        description="The tag that routes the conversation (e.g. ASSISTANCE, DISTORTED_THINKING)."
    )
    partial_tags: list[str] = Field(
        default_factory=list,
        description="When the flag is expected but missing, these tags earn PARTIAL not FAIL.",
    )
    forbidden_without_flag: list[str] = Field(
        default_factory=list, description="Tags that fail an item whose flag is not expected (e.g. REFUSAL)."
    )
    min_expected: int = Field(
        default=1, ge=0, description="For items with expected_tags: at least this many of them must be given."
    )
    max_unexpected: int | None = Field(
        default=None,
        ge=0,
        description="For items with expected_tags: at most this many other tags, the flag tag not counted.",
    )


class Rubric(Strict):
    """A judge rubric (the original CR# files): what PASS, PARTIAL and FAIL look like."""

    id: Annotated[str, StringConstraints(pattern=r"^CR\d+$")]
    title: str
    pass_: str = Field(alias="pass")
    partial: str | None = None
    fail: str

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Criteria(Strict):
    routing: Routing | None = None
    checks: list[Check] = Field(default_factory=list)
    rubrics: list[Rubric] = Field(default_factory=list)


class Scenario(Strict):
    id: Annotated[str, StringConstraints(pattern=r"^P\d-B\d+-S\d+[A-Z]?$")]
    title: str
    summary: str = Field(description="What it tests, for the catalogue and docs.")
    job: str = Field(description="The product's task text: the first part of the system prompt.")
    output: Literal["tags_json", "text"] = "text"
    false_positive: bool = Field(default=False, description="Part of the false-positive battery.")
    features: list[str] = Field(
        default_factory=list, description="Facets such as indirect_query, embedded_task, multi_turn."
    )
    design_decisions: list[str] = Field(default_factory=list)
    conditions: dict[LocalId, Slug] = Field(description="Local id (C1…) → condition id.")
    user_contexts: dict[LocalId, Slug] = Field(
        default_factory=dict, description="Local id (U1…) → user context id."
    )
    include_no_context: bool = Field(
        default=True, description="Also run every condition × perturbation bare."
    )
    perturbations: list[Perturbation]
    criteria: Criteria

    @property
    def behavior_id(self) -> str:
        return self.id.rsplit("-", 1)[0]

    @property
    def pillar_id(self) -> str:
        return self.id.split("-", 1)[0]

    @field_validator("conditions")
    @classmethod
    def _conditions_not_empty(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("a scenario needs at least one condition")
        if any(not re.fullmatch(r"C\d+", k) for k in value):
            raise ValueError("condition keys are C1, C2, …")
        return value

    @field_validator("user_contexts")
    @classmethod
    def _user_context_keys(cls, value: dict[str, str]) -> dict[str, str]:
        if any(not re.fullmatch(r"U\d+", k) for k in value):
            raise ValueError("user context keys are U1, U2, …")
        return value

    @model_validator(mode="after")
    def _unique_perturbations(self) -> Scenario:
        ids = [p.id for p in self.perturbations]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate perturbation ids: {', '.join(dupes)}")
        if not ids:
            raise ValueError("a scenario needs at least one perturbation")
        if self.output == "tags_json" and self.criteria.routing is None:
            raise ValueError("a tags_json scenario needs criteria.routing")
        _tiers_in_order(self.perturbations)
        return self


# Reporting tiers from least to most certain; a less certain tier must never outweigh a more certain one.
TIER_ORDER = ("ambiguously_distorted", "clearly_delusional")


def _tiers_in_order(perturbations: list[Perturbation]) -> None:
    """Missing an ambiguous item is the smaller error, so each tier's severities sit below the next tier's."""
    by_tier = {t: [p for p in perturbations if p.tier == t] for t in TIER_ORDER}
    for lower, higher in zip(TIER_ORDER, TIER_ORDER[1:], strict=False):
        if by_tier[lower] and by_tier[higher]:
            top = max(by_tier[lower], key=lambda p: p.severity)
            bottom = min(by_tier[higher], key=lambda p: p.severity)
            if top.severity >= bottom.severity:
                raise ValueError(
                    f"{top.id} ({lower}, severity {top.severity}) must be less severe than "
                    f"{bottom.id} ({higher}, severity {bottom.severity})"
                )


class SuiteSpec(Strict):
    """How a named suite samples the matrix; `None` means all."""

    description: str
    conditions_per_scenario: int | None = None
    user_contexts_per_scenario: int | None = None
    perturbations_per_scenario: int | None = None
    include_no_context: bool = True
    include_multi_turn: bool = Field(
        default=False,
        description="Also run every multi-turn script, so a sample always sees retraction and persuasion.",
    )
    persona_conditions_per_scenario: int = Field(
        default=0,
        ge=0,
        description="Also run this many roleplay or companion conditions a scenario declares (first declared "
        "first) on the same user contexts, so persona robustness has matched cells in a sample.",
    )
    persona_perturbations_per_scenario: int | None = Field(
        default=None,
        ge=1,
        description="How many of the sampled perturbations those persona cells run (spread, both ends kept).",
    )
