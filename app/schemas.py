"""Request and response bodies of the JSON API (the public shape; tables stay in app.store.models)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from app.benchmark.verdicts import Verdict
from app.judge_spec import PARAMS_DESCRIPTION, JudgeCreate, ModelKind, distinct_judges, not_reserved
from app.request_template import unknown_placeholders
from app.store.roles import Role
from app.store.statuses import Status

TargetKind = Literal["openai_chat", "anthropic_messages", "http_json"]
PROBE_FIELD = Field(
    default=True,
    description="Call each endpoint once before accepting the request, and refuse it (422, naming the endpoint "
    "and why) if one fails; false skips that, e.g. for an endpoint not up yet.",
)


class Served(BaseModel):
    """A body the API answers with: every field is in every answer (a default included), so the published
    schema requires each one, and a generated client does not type an always-present field as optional."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


Suite = Literal["quick", "full", "conversations", "simulated", "classification"]
Visibility = Literal["private", "public"]


class TargetCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    kind: TargetKind = "openai_chat"
    base_url: str = Field(min_length=1, max_length=2000, description="e.g. https://api.example.com/v1")
    model: str = Field(min_length=1, max_length=200)
    api_key: str | None = Field(default=None, max_length=4000, description="Write-only; never returned.")
    headers: dict[str, str] = Field(
        default_factory=dict, description="Write-only extra headers (may hold auth)."
    )
    params: dict[str, Any] = Field(
        default_factory=dict, description="Sampling parameters sent with each call."
    )
    max_concurrency: int | None = Field(default=None, ge=1, le=4096)
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="Reply length cap sent with each call (Anthropic requires one; 1024 if unset).",
    )
    timeout_s: float | None = Field(default=None, gt=0, le=600, description="One call, connect to last byte.")
    requests_per_minute: int | None = Field(default=None, ge=1, le=1_000_000)
    tokens_per_minute: int | None = Field(
        default=None, ge=1, le=100_000_000, description="Paces calls by estimated prompt + max_tokens."
    )
    request_template: dict[str, Any] | None = Field(
        default=None,
        description="http_json: the JSON body, with {{messages}}, {{turns}}, {{system}}, "
        "{{last_user}}, {{model}} or {{max_tokens}} placeholders.",
    )
    reply_pointer: str | None = Field(
        default=None, max_length=500, description="http_json: JSON pointer to the reply, e.g. /output/text."
    )
    probe: bool = PROBE_FIELD

    @field_validator("request_template")
    @classmethod
    def _known_placeholders(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        unknown = unknown_placeholders(value) if value is not None else set()
        if unknown:
            raise ValueError(f"unknown placeholders: {', '.join(sorted(unknown))}")
        return value

    @field_validator("reply_pointer")
    @classmethod
    def _pointer_form(cls, value: str | None) -> str | None:
        if value is not None and value and not value.startswith("/"):
            raise ValueError("a JSON pointer starts with '/', e.g. /output/text")
        return value

    @field_validator("headers")
    @classmethod
    def _header_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if not name or any(c in name for c in " :\r\n") or len(name) > 100:
                raise ValueError(f"invalid header name {name!r}")
        if len(value) > 32:
            raise ValueError("at most 32 headers")
        return value

    @field_validator("params")
    @classmethod
    def _paramsnot_reserved(cls, value: dict[str, Any]) -> dict[str, Any]:
        return not_reserved(value) or {}


class TargetUpdate(BaseModel):
    """A partial change of a target: the fields given replace the current ones (null clears an optional one),
    then the whole is checked exactly as a new target would be. Becomes the target's next version."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    kind: TargetKind | None = None
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = Field(default=None, description="Write-only; null removes the key.")
    headers: dict[str, str] | None = Field(default=None, description="Write-only; replaces every header.")
    params: dict[str, Any] | None = None
    max_concurrency: int | None = None
    max_tokens: int | None = None
    timeout_s: float | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    request_template: dict[str, Any] | None = None
    reply_pointer: str | None = None
    probe: bool = PROBE_FIELD


class TargetSettingsPublic(Served):
    """A target's configuration as the API shows it; secrets show only as whether they are set."""

    name: str
    kind: str
    base_url: str
    model: str
    params: dict[str, Any]
    max_concurrency: int
    max_tokens: int | None = None
    timeout_s: float | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    request_template: dict[str, Any] | None = None
    reply_pointer: str | None = None
    has_api_key: bool
    header_names: list[str]


class TargetVersionPublic(TargetSettingsPublic):
    """One recorded configuration of a target."""

    version: int
    created_at: datetime


class TargetPublic(TargetSettingsPublic):
    id: str
    created_at: datetime
    version: int = Field(default=1, description="The current version; each change of the target adds one.")


class ProbeResultPublic(Served):
    endpoint: str = Field(description="target, judge, judges[i] or simulator, as the request names it.")
    ok: bool
    detail: str = Field(description="How it answered, or why it failed, in words.")
    latency_ms: float
    status: int | None = Field(default=None, description="The HTTP status it answered with, if any.")
    param: str | None = Field(
        default=None, description="The parameter the provider rejected, if it named one."
    )


class ProbeReport(BaseModel):
    ok: bool
    results: list[ProbeResultPublic]


class SimulatorCreate(BaseModel):
    """The LLM that plays the persona cards of the `simulated` suite (OpenAI-compatible or Anthropic Messages)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(min_length=1, max_length=2000, description="e.g. https://api.example.com/v1")
    model: str = Field(min_length=1, max_length=200)
    api_key: str | None = Field(default=None, max_length=4000, description="Write-only; never returned.")
    turn_cap: int | None = Field(
        default=None, ge=1, le=40, description="Most user turns per conversation; unset: the service's (20)."
    )
    word_cap: int | None = Field(
        default=None, ge=5, le=400, description="Most words per simulated user turn; unset: the service's."
    )
    kind: ModelKind = "openai_chat"
    params: dict[str, Any] = Field(
        default_factory=dict, description=PARAMS_DESCRIPTION + " Default: max_tokens sized to the word cap."
    )

    @field_validator("params")
    @classmethod
    def _paramsnot_reserved(cls, value: dict[str, Any]) -> dict[str, Any]:
        return not_reserved(value) or {}


class SimulatorPublic(Served):
    base_url: str | None = Field(description="null: the service's default simulator.")
    model: str | None
    turn_cap: int
    word_cap: int
    kind: str | None = None
    params: dict[str, Any] | None = None


class EvaluationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target_id: str = Field(min_length=1, max_length=40)
    suite: Suite = "quick"
    repeats: int = Field(default=1, ge=1, le=100)
    visibility: Visibility = "private"
    share_transcripts: bool = Field(
        default=False, description="Public: let the leaderboard show messages and replies (never by default)."
    )
    judge: JudgeCreate | None = Field(default=None, description="Grade with this judge, not the default.")
    judges: list[JudgeCreate] | None = Field(
        default=None,
        min_length=1,
        max_length=3,
        description="Grade with this panel of 1-3 judges, not the default: each item gets the median of "
        "their scores. Give `judge` or `judges`, not both.",
    )
    simulator: SimulatorCreate | None = Field(
        default=None,
        description="suite `simulated` only: the LLM that plays the users; unset: the service default.",
    )
    baseline_evaluation_id: str | None = Field(
        default=None,
        max_length=40,
        description="Once this evaluation succeeds, compare it item by item with that one of the team's "
        "evaluations and record any significant drop as a regression.",
    )
    max_calls: int | None = Field(
        default=None,
        ge=1,
        description="Cap on calls made to the target (every attempt, retries included): an item starts only "
        "while the calls measured so far plus its planned calls stay within it; once none may, the run stops "
        "(status stopped_by_budget) and the report covers what ran.",
    )
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Cap on the target's tokens (prompt + completion) as its replies' `usage` reports them, "
        "or as `plan` estimates them for a reply that reports none; applied like max_calls.",
    )
    probe: bool = PROBE_FIELD

    @field_validator("judges")
    @classmethod
    def _one_way_to_name_judges(cls, value: list[JudgeCreate] | None, info: ValidationInfo) -> Any:
        if value is not None and info.data.get("judge") is not None:
            raise ValueError("give `judge` or `judges`, not both")
        return distinct_judges(value) if value is not None else None

    def panel(self) -> list[JudgeCreate]:
        """The judges this evaluation asked for (a single `judge` is a panel of one); empty: the default."""
        return self.judges or ([self.judge] if self.judge else [])


class RunPlan(BaseModel):
    """What the run costs, known before it starts (estimates: 4 characters a token, a fixed reply length)."""

    items: int = Field(description="Items in the suite's matrix (with repeats).")
    calls: int = Field(description="Target calls for the whole matrix: one per user turn of each item.")
    prompt_tokens_est: int
    completion_tokens_est: int
    judge_calls: int = Field(description="Judge calls, counted apart from the target's (0 without a judge).")
    items_within_budget: int = Field(
        description="Items the caps would let run if every item cost what it is estimated to (all of them "
        "without caps); the run itself stops by what it measures, so it may run more or fewer."
    )


class Progress(BaseModel):
    total: int
    done: int
    failed: int


class EvaluationPublic(Served):
    id: str
    status: Status
    target_id: str
    target_version: int = Field(
        default=1, description="The version of the target this evaluation runs against."
    )
    target_name: str
    model: str
    suite: str
    repeats: int
    visibility: str
    share_transcripts: bool = False
    progress: Progress
    plan: RunPlan | None = None
    max_calls: int | None = None
    max_tokens: int | None = None
    calls_used: int | None = Field(
        default=None,
        description="With caps: calls measured so far (items in flight count at their planned share).",
    )
    tokens_used: int | None = Field(
        default=None,
        description="With caps: tokens reported (else estimated) so far, items in flight at their planned share.",
    )
    benchmark_version: str
    error: str | None
    stalled: str | None = Field(
        default=None,
        description="Set while a running evaluation has written nothing for a while: why, in words. "
        "Cleared when items are written again; if it lasts, the evaluation fails with this reason.",
    )
    simulator: SimulatorPublic | None = Field(default=None, description="Who played the users (simulated).")
    schedule_id: str | None = Field(default=None, description="The schedule that started it, if one did.")
    baseline_evaluation_id: str | None = Field(
        default=None, description="What it is (or, once succeeded, was) compared with for regressions."
    )
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class EvaluationAccepted(Served):
    id: str
    status: Status
    plan: RunPlan | None = None


class EvaluationPage(BaseModel):
    items: list[EvaluationPublic]
    next_cursor: str | None


class ItemPublic(Served):
    key: str
    index: int
    code: str
    item_kind: str = Field(
        description="The suite kind that played the item (matrix, conversations, simulated, classification)."
    )
    scenario_id: str
    condition_id: str
    user_context_id: str | None
    perturbation_id: str
    repeat: int
    messages: list[dict[str, Any]]
    reply: str | None
    error_class: str | None
    error: str | None
    attempts: int
    latency_ms: float | None
    verdict: str | None
    score: float | None = Field(description="The judge's 1-5 score (a panel's median); null without a judge.")
    likert: dict[str, Any] | None = Field(
        default=None,
        description="The 1-5 appropriateness grade: `score` and its `source` (judge, else rules), both kept.",
    )
    checks: dict[str, Any]
    reasons: list[str]


class ResultsPage(BaseModel):
    items: list[ItemPublic]
    next_cursor: str | None


class LeaderboardEntry(Served):
    rank: int
    evaluation_id: str
    target_name: str
    model: str
    suite: str
    score: float = Field(description="The headline score; evaluations without one are not on the board.")
    score_100: float = Field(description="The headline score on the 0–100 scale the pages print.")
    band: str = Field(description="A to E by the 0–100 score; C and above: every safety floor holds.")
    pass_rate: float | None = Field(description="Share of graded items that passed (PASS only).")
    pass_rate_interval: list[float] | None
    pillars: dict[str, float | None] = Field(
        description="Per pillar, the severity-weighted pillar score of the headline (0–1); its pass rate where "
        "the report has no such score. Names: the board's `pillar_names`."
    )
    n_items: int
    finished_at: datetime
    score_interval: list[float] | None = None
    pillar_intervals: dict[str, list[float]] = Field(
        default_factory=dict,
        description="Per pillar with one, the 95% interval of its figure in `pillars` (reports stored before "
        "pillars had intervals have none).",
    )
    pillar_basis: dict[str, str] = Field(
        default_factory=dict,
        description="Pillars whose figure in `pillars` is not the score: 'pass rate' where the report has no score "
        "for it, 'pass rate, rules only' where nothing in it is graded yet.",
    )
    capped: bool = Field(
        default=False,
        description="A safety floor was breached: the score sits below 0.40, under every system that clears them.",
    )
    why: str | None = Field(
        default=None,
        description="One line on why the score is what it is: breached floors, weakest behaviour.",
    )
    quality: float | None = Field(
        default=None,
        description="The weighted quality before the safety floors, 0–1 (null for a row stored before boards kept it).",
    )
    quality_100: float | None = Field(default=None, description="The quality on the 0–100 scale.")
    cap: str | None = Field(
        default=None, description="Which safety floor capped the score, in words; null if none."
    )
    sensitivity: float | None = Field(default=None, description="Share of crisis items recognised.")
    over_escalation: float | None = Field(default=None, description="Share of false-positive items flagged.")
    ungraded_share: float | None = None
    grader: Literal["rules", "judge", "panel"] | None = Field(
        default=None,
        description="Which kind of grade the figures are: the rules' alone (no judge answered), one judge's, or a "
        "panel's. How far each agrees with trained raters on real replies: docs/scoring.md#validity.",
    )
    pass_rate_basis: str | None = Field(
        default=None, description="'rules only' when no item is graded yet and the rate is the checks' own."
    )


class Leaderboard(Served):
    benchmark_version: str
    entries: list[LeaderboardEntry]
    pillar_names: dict[str, str] = Field(
        default_factory=dict, description="Pillar id → its name in the library."
    )
    total: int = Field(default=0, description="Entries on the whole board (every page).")
    hidden: int = Field(default=0, description="Evaluations with no item in the chosen country or condition.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


class KeyCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    role: Role = "member"
    team_id: str | None = Field(default=None, max_length=40, description="Platform admins: another team.")


class KeyPublic(BaseModel):
    id: str
    team_id: str
    name: str
    role: Role
    prefix: str = Field(description="The first characters of the key; the rest is never stored.")
    created_at: datetime
    revoked_at: datetime | None


class KeyCreated(KeyPublic):
    key: str = Field(description="The full key, shown this once.")


class TeamCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)


class TeamPublic(Served):
    id: str
    name: str
    platform: bool
    created_at: datetime
    transcript_retention_days: int | None = Field(
        default=None,
        description="Days the text of finished items and batch lines is kept (null: the default).",
    )


class TeamUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    transcript_retention_days: int | None = Field(
        default=None,
        ge=1,
        le=36500,
        description="Days to keep transcripts after a run finishes; null: the service default; left out: unchanged.",
    )


class TeamCreated(TeamPublic):
    admin_key: KeyCreated = Field(description="The team's first admin key, shown this once.")


class LabelIn(BaseModel):
    """A human label for one item: any of the verdict, the 1–5 score and check outcomes."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(min_length=1, max_length=64)
    verdict: Verdict | None = None
    score: int | None = Field(default=None, ge=1, le=5)
    checks: dict[str, bool] = Field(default_factory=dict, description="Check name → what a human says it is.")

    @model_validator(mode="after")
    def _says_something(self) -> LabelIn:
        if self.verdict is None and self.score is None and not self.checks:
            raise ValueError("give at least one of verdict, score or checks")
        return self


class LabelsAccepted(BaseModel):
    evaluation_id: str
    received: int
    labelled_items: int


WebhookEvent = Literal[
    "evaluation.succeeded",
    "evaluation.failed",
    "evaluation.cancelled",
    "evaluation.stopped_by_budget",
    "evaluation.stalled",
    "evaluation.regressed",
    "grade_batch.completed",
]


class WebhookCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2000, description="The receiver; checked like target URLs.")
    events: list[WebhookEvent] | None = Field(default=None, min_length=1, description="Unset: every event.")


class WebhookPublic(BaseModel):
    id: str
    url: str
    events: list[WebhookEvent]
    created_at: datetime


class WebhookCreated(WebhookPublic):
    secret: str = Field(description="The whsec_… signing secret (Standard Webhooks), shown this once.")


class WebhookDeliveryPublic(Served):
    id: int
    message_id: str = Field(description="The webhook-id header: the same on every attempt of one message.")
    event_type: WebhookEvent
    evaluation_id: str | None = Field(
        description="The evaluation the message is about (null for a grade batch)."
    )
    grade_batch_id: str | None = Field(default=None, description="The grade batch it is about, if one.")
    attempt: int
    ok: bool
    status_code: int | None
    error: str | None
    duration_ms: float
    message_state: Literal["pending", "delivered", "failed"]
    created_at: datetime


class WebhookDeliveryPage(BaseModel):
    items: list[WebhookDeliveryPublic]
    next_cursor: str | None


class AlertRule(BaseModel):
    """When a drop from the baseline counts as a regression (it must also be significant after Holm)."""

    model_config = ConfigDict(extra="forbid")

    max_drop: float = Field(
        default=0.0,
        ge=0,
        description="Drops up to this are tolerated, in the metric's own units (rates and the headline 0-1, "
        "mean_score in judge-score points).",
    )
    metrics: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Watch only these (headline, pillar:<id>, sensitivity, over_escalation, local_resource, "
        "mean_score); unset: all.",
    )


def _valid_cron(value: str | None) -> str | None:
    from croniter import croniter

    if value is not None and not croniter.is_valid(value):
        raise ValueError("not a cron expression (five fields: minute hour day month weekday)")
    return value


class ScheduleCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target_id: str = Field(min_length=1, max_length=40)
    suite: Suite = "quick"
    repeats: int = Field(default=1, ge=1, le=100)
    cron: str | None = Field(
        default=None, min_length=1, max_length=200, description="UTC; give this or every_minutes."
    )
    every_minutes: int | None = Field(default=None, ge=1, le=525_600)
    baseline: str = Field(
        default="previous",
        min_length=1,
        max_length=40,
        description='"previous": the last succeeded evaluation of the same target and suite; or an evaluation id.',
    )
    alert: AlertRule = Field(default_factory=AlertRule)

    _cron = field_validator("cron")(_valid_cron)


class SchedulePatch(BaseModel):
    """Only the fields given change; giving cron drops every_minutes and the other way round."""

    model_config = ConfigDict(extra="forbid")

    suite: Suite | None = None
    repeats: int | None = Field(default=None, ge=1, le=100)
    cron: str | None = Field(default=None, min_length=1, max_length=200)
    every_minutes: int | None = Field(default=None, ge=1, le=525_600)
    baseline: str | None = Field(default=None, min_length=1, max_length=40)
    alert: AlertRule | None = None
    paused: bool | None = None

    _cron = field_validator("cron")(_valid_cron)


class SchedulePublic(BaseModel):
    id: str
    target_id: str
    suite: str
    repeats: int
    cron: str | None
    every_minutes: int | None
    baseline: str
    alert: AlertRule
    paused: bool
    next_run_at: datetime
    last_run_at: datetime | None
    last_evaluation_id: str | None
    last_error: str | None
    created_at: datetime


class RegressionPublic(BaseModel):
    id: str
    evaluation_id: str
    baseline_evaluation_id: str
    schedule_id: str | None
    metric: str
    test: Literal["mcnemar", "wilcoxon", "permutation"] = Field(
        description="mcnemar: exact McNemar on pass/fail; wilcoxon: signed-rank on scores; permutation: the "
        "headline score's paired permutation test (docs/scoring.md §5a)"
    )
    baseline_value: float
    value: float
    difference: float = Field(description="value - baseline_value, over the item pairs both graded.")
    interval: tuple[float, float] | None = Field(description="95% interval of the paired difference.")
    p_value: float
    p_adjusted: float = Field(description="Holm-Bonferroni across the metrics compared for this evaluation.")
    n_pairs: int
    flipped_keys: list[str] = Field(description="Item keys that were good in the baseline and bad now.")
    created_at: datetime


class RegressionPage(BaseModel):
    items: list[RegressionPublic]
    next_cursor: str | None


class GradeBatchAccepted(BaseModel):
    id: str
    status: str
    lines: int
    bad: int


class GradeBatchPublic(Served):
    id: str
    status: str = Field(description="uploading, queued, running or succeeded (every line graded or refused)")
    lines: int = Field(description="Transcript lines uploaded (blank lines are not counted).")
    graded: int
    bad: int = Field(description="Lines refused (not JSON, or not a transcript); see /errors.")
    error: str | None = None


class BatchResult(BaseModel):
    line: int
    result: dict[str, Any] = Field(description="What POST /v1/grade answers for this line's transcript.")


class BatchResultsPage(BaseModel):
    items: list[BatchResult]
    next_cursor: str | None


class BadLine(BaseModel):
    line: int
    field: str | None
    error: str


class BadLinesPage(BaseModel):
    items: list[BadLine]
    next_cursor: str | None


SHARE_DEFAULT_DAYS = 7
SHARE_MAX_DAYS = 90


class ShareCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expires_in_days: int = Field(
        default=SHARE_DEFAULT_DAYS,
        ge=1,
        le=SHARE_MAX_DAYS,
        description="The link opens the report until then.",
    )
    label: str | None = Field(default=None, min_length=1, max_length=200, description="Who it was sent to.")


class SharePublic(BaseModel):
    id: str
    evaluation_id: str
    label: str | None
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    active: bool = Field(description="Not revoked and not expired: the link opens the report now.")


class ShareCreated(SharePublic):
    url: str = Field(description="The report page for anyone holding it, read-only; shown this once.")


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    """Ready: the database and the queue both answer (a 503 problem names the one that does not)."""

    status: Literal["ready"]
    database: Literal["ok"]
    queue: Literal["ok"]
