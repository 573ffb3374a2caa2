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
    "psychosis_or_delusion",
    "emotional_reliance",
    "no_crisis",
]
CRISIS_CATEGORIES: tuple[str, ...] = CrisisCategory.__args__  # type: ignore[attr-defined]

LanguageStyle = Literal[
    "standard", "non_native", "slang", "emoji", "code_switching", "idiom", "typos", "terse", "formal"
]
Severity = Annotated[int, Field(ge=-10, le=10)]
LocalId = Annotated[str, StringConstraints(pattern=r"^(C|U|PT)\d+[a-z]?$")]
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_\-]*$")]
CountryCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


AgeBand = Literal["minor", "adult", "older"]
AGE_BANDS: tuple[str, ...] = AgeBand.__args__  # type: ignore[attr-defined]

# The closed list of life facts a message can assert about its sender and a user context can hold. Closed so a
# typo ("widow" for "widowed") cannot silently pair a message with nobody, or with everybody.
SENDER_FACTS: dict[str, str] = {
    "widowed": "their spouse or life partner has died",
    "partnered": "has a current spouse or partner",
    "separated": "has split from a spouse or partner (divorce, separation, break-up)",
    "single": "has never been in a couple",
    "parent": "has children of any age",
    "parent_of_minors": "has at least one child under 18",
    "parent_of_adults": "has grown-up children",
    "new_parent": "has a baby of a few months or less",
    "grandparent": "has grandchildren",
    "pregnant": "is pregnant now",
    "veteran": "has served in the armed forces",
    "student": "is in education (school, college or university)",
    "university_student": "is at university or college",
    "employed": "has a paid job now",
    "unemployed": "has lost their job or is looking for work",
    "retired": "has retired from work",
    "carer": "looks after someone who depends on them",
    "migrant": "lives in a country they were not raised in",
    "lives_alone": "lives on their own",
    "chronic_illness": "lives with long-term pain or illness",
    "in_recovery": "is staying off alcohol or drugs after problem use",
    "uses_alcohol_or_drugs": "drinks or uses drugs in a way that worries them or others",
    "recently_bereaved": "lost someone close in the last year or so",
    "lgbtq": "is lesbian, gay, bisexual, trans or non-binary",
    "domestic_abuse_survivor": "has left an abusive partner",
    "self_harm_history": "has hurt themselves in the past",
    "in_armed_forces": "is serving in the armed forces now",
    "serious_illness": "has a serious or life-limiting diagnosis",
    "self_employed": "runs their own business",
    "writes_in_second_language": "writes English as a second language",
    "speaks_french": "speaks French",
    "speaks_german": "speaks German",
    "speaks_hindi": "speaks Hindi",
    "speaks_portuguese": "speaks Portuguese",
    "speaks_spanish": "speaks Spanish",
    "speaks_tagalog": "speaks Tagalog (Filipino)",
    "speaks_te_reo": "speaks te reo Māori",
    "speaks_turkish": "speaks Turkish",
    "speaks_japanese": "speaks Japanese",
}


def age_band(age: int) -> str:
    """minor under 18, older from 65: the bands a message's words can rule a sender in or out of."""
    return "minor" if age < 18 else "older" if age >= 65 else "adult"


def unknown_facts(facts: list[str]) -> list[str]:
    return [f for f in facts if f not in SENDER_FACTS]


class Sender(Strict):
    """What a message's words imply about whoever sends it; a user context is paired with it only if it fits."""

    age_bands: list[AgeBand] | None = Field(
        default=None, description="Bands the words fit (minor <18, adult 18-64, older 65+); omit = any."
    )
    ages: list[Annotated[int, Field(ge=13, le=100)]] | None = Field(
        default=None,
        description='Where the words state an age ("i\'m only 17"): the ages they fit; omit = any.',
    )
    facts: list[str] = Field(
        default_factory=list, description="Life facts the words assert; the user context must hold every one."
    )


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
    counterfactual_of: Slug | None = Field(
        default=None,
        description="The user context this one copies, history and all, but for the one attribute in `varies`.",
    )
    varies: Literal["gender", "culture", "age_band"] | None = Field(
        default=None, description="The one attribute in which this context differs from `counterfactual_of`."
    )

    @property
    def age_band(self) -> str:
        return age_band(self.age)

    @model_validator(mode="after")
    def _known_facts_and_pairing(self) -> UserContext:
        if bad := unknown_facts(self.facts):
            raise ValueError(
                f"{self.id}: unknown fact(s) {', '.join(map(repr, bad))}; known: {', '.join(SENDER_FACTS)}"
            )
        if (self.counterfactual_of is None) != (self.varies is None):
            raise ValueError(f"{self.id}: give both 'counterfactual_of' and 'varies', or neither")
        return self


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
    sender: Sender | None = Field(
        default=None, description="What the words imply about the sender (for a script, all its turns)."
    )
    note: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> Perturbation:
        if self.sender is not None and (bad := unknown_facts(self.sender.facts)):
            raise ValueError(
                f"{self.id}: unknown sender fact(s) {', '.join(map(repr, bad))}; known: {', '.join(SENDER_FACTS)}"
            )
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
    pairs: dict[LocalId, list[LocalId]] = Field(
        default_factory=dict,
        description="User context (U1…) → perturbations (PT…) written for that person: validate refuses the "
        "library if the message's sender does not fit the context. Other pairings run only where they fit.",
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
        for local, pts in self.pairs.items():
            if local not in self.user_contexts:
                raise ValueError(f"pairs.{local}: not one of the scenario's user contexts")
            if missing := sorted(set(pts) - set(ids)):
                raise ValueError(f"pairs.{local}: unknown perturbation(s) {', '.join(missing)}")
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


BUILTIN_SUITE_KINDS = (
    "matrix",
    "conversations",
    "simulated",
    "classification",
)  # app/kinds has one module each


class SuiteSpec(Strict):
    """How a named suite samples the matrix; `None` means all."""

    description: str
    kind: str = Field(
        default="matrix",
        json_schema_extra={"enum": list(BUILTIN_SUITE_KINDS)},
        description="matrix: scenarios × conditions × contexts × perturbations; conversations: every adaptive "
        "conversation script of benchmark_data/conversations, each one item; simulated: every persona card of "
        "benchmark_data/personas under each of `conditions`, each one LLM-played conversation; classification: "
        "the target labels each single message with one crisis category (app/benchmark/classification.py picks "
        "the messages and ignores the sampling fields below).",
    )
    conditions: list[Slug] = Field(
        default_factory=list,
        description="simulated: the conditions (library ids) every persona card talks to.",
    )
    instruction: str | None = Field(
        default=None, description="classification only: the fixed instruction sent with every message."
    )
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="classification only: every crisis category → the definition shown to the target.",
    )
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

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        """A kind of item app/kinds has: the built-in ones, or one a deployment registered."""
        from app.kinds.registry import kind_names  # the kinds stand on this module: looked up at call time

        known = kind_names()
        if kind not in known:
            raise ValueError(f"unknown suite kind {kind!r}; one of {', '.join(known)}")
        return kind

    @model_validator(mode="after")
    def _task_fields(self) -> SuiteSpec:
        if self.kind != "classification" and (self.instruction or self.labels):
            raise ValueError("'instruction' and 'labels' belong to a classification suite")
        if self.kind == "classification":
            if not self.instruction:
                raise ValueError("a classification suite needs an 'instruction'")
            if set(self.labels) != set(CRISIS_CATEGORIES):
                missing = sorted(set(CRISIS_CATEGORIES) - set(self.labels))
                extra = sorted(set(self.labels) - set(CRISIS_CATEGORIES))
                raise ValueError(
                    f"labels must define every crisis category and no other; missing {missing}, unknown {extra}"
                )
        return self
