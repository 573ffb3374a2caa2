"""SQLModel tables. Everything a user owns carries team_id, so isolation never needs reshaping."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


class Team(SQLModel, table=True):
    id: str = Field(default_factory=lambda: new_id("team"), primary_key=True, max_length=40)
    name: str = Field(max_length=200)
    created_at: datetime = Field(default_factory=utcnow)
    platform: bool = Field(default=False, description="Admins of the platform team manage every team.")
    # How long the text of the team's items and batch lines is kept (None: the service default).
    transcript_retention_days: int | None = None


class ApiKey(SQLModel, table=True):
    id: str = Field(default_factory=lambda: new_id("key"), primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", index=True, max_length=40)
    name: str = Field(max_length=200)
    role: str = Field(default="member", max_length=20)
    prefix: str = Field(max_length=20, description="Shown in listings; the rest of the key is never stored.")
    key_hash: str = Field(unique=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class Target(SQLModel, table=True):
    id: str = Field(default_factory=lambda: new_id("tgt"), primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", index=True, max_length=40)
    name: str = Field(max_length=200)
    kind: str = Field(max_length=40)
    base_url: str = Field(max_length=2000)
    model: str = Field(max_length=200)
    api_key_secret: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    headers_secret: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    max_concurrency: int = 16
    # runner: per-target call shape and limits
    max_tokens: int | None = None
    timeout_s: float | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    request_template: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    reply_pointer: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
    deleted_at: datetime | None = None
    # versions: the columns above are the current version's; every version is kept, so old runs stay explained
    version: int = 1


# The target columns a version snapshots: what decides how a call is made (secrets still sealed).
TARGET_CONFIG_FIELDS = (
    "name",
    "kind",
    "base_url",
    "model",
    "api_key_secret",
    "headers_secret",
    "params",
    "max_concurrency",
    "max_tokens",
    "timeout_s",
    "requests_per_minute",
    "tokens_per_minute",
    "request_template",
    "reply_pointer",
)


class TargetVersion(SQLModel, table=True):
    """One immutable configuration of a target: an evaluation runs against the version it was created with,
    so a later edit never changes what a past (or running) evaluation measured."""

    __tablename__ = "target_version"
    __table_args__ = (UniqueConstraint("target_id", "version", name="uq_target_version"),)

    id: int | None = Field(default=None, primary_key=True)
    target_id: str = Field(foreign_key="target.id", index=True, max_length=40)
    version: int
    config: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class Evaluation(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("team_id", "idempotency_key", name="uq_evaluation_idempotency"),
        Index("ix_evaluation_leaderboard", "visibility", "status", "benchmark_version"),
        Index("uq_evaluation_schedule_tick", "schedule_id", "scheduled_for", unique=True),
    )
    id: str = Field(default_factory=lambda: new_id("ev"), primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", index=True, max_length=40)
    target_id: str = Field(foreign_key="target.id", index=True, max_length=40)
    target_name: str = Field(max_length=200)
    model: str = Field(max_length=200)
    suite: str = Field(max_length=40)
    repeats: int = 1
    visibility: str = Field(default="private", max_length=20)
    share_transcripts: bool = Field(default=False, description="Public views may show messages and replies.")
    status: str = Field(default="queued", max_length=20, index=True)
    benchmark_version: str = Field(max_length=40)
    total: int = 0
    shards: int = 1
    idempotency_key: str | None = Field(default=None, max_length=200)
    request_hash: str | None = Field(default=None, max_length=64)
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    summary: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    # grading: the evaluation's own judge; its key is encrypted at rest like a target's
    judge_config: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    judge_api_key_secret: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # simulated users: the simulator's endpoint and the rules of its conversations, in clear;
    # its key sealed like a target's. No base_url in the config: the service default simulator plays the cards.
    simulator_config: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    simulator_api_key_secret: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, index=True)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # resilience: the reconciler's watch on progress. progress_done is the item count it last
    # saw; idle_since is when that count last stopped moving (None while it moves); stalled says why it stopped.
    progress_done: int = 0
    idle_since: datetime | None = None
    stalled: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    stalled_at: datetime | None = None
    # schedules and regressions: the schedule and tick that started it (unique together, so a
    # tick starts at most one evaluation), and the evaluation it was compared with once it succeeded.
    schedule_id: str | None = Field(default=None, max_length=40)
    scheduled_for: datetime | None = None
    baseline_evaluation_id: str | None = Field(default=None, max_length=40)
    # versions and budgets: the target version run against; the planned calls and tokens;
    # optional caps on them (the run stops, status stopped_by_budget, once the next item would pass a cap)
    target_version: int = 1
    plan: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    max_calls: int | None = None
    max_tokens: int | None = None
    # measured budgets, kept only for an evaluation with caps: target calls made and tokens
    # reported (or estimated), plus each running item's estimate until it is measured; items holding such a
    # share and not yet written; when an item found the budget spent (the run then takes no new item).
    calls_used: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    tokens_used: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs={"server_default": "0"})
    budget_in_flight: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    budget_stopped_at: datetime | None = None
    # Set when the transcripts were erased and only the report kept: results then answer 410, not rows.
    transcripts_deleted_at: datetime | None = None
    # Set when the retention sweep removed the items' text (the grades stay): after how many days.
    transcripts_removed_after_days: int | None = None


class EvaluationItem(SQLModel, table=True):
    """One matrix cell × repeat, written once: (evaluation_id, key) is unique and a second write is a no-op."""

    __tablename__ = "evaluation_item"
    __table_args__ = (
        UniqueConstraint("evaluation_id", "key", name="uq_item_key"),
        Index("ix_item_evaluation_idx", "evaluation_id", "idx"),
        # progress (written, failed) counted from the index alone: the rows are large (messages, reply, checks)
        Index("ix_item_evaluation_error", "evaluation_id", "error_class"),
        # results filtered by verdict (the failures a researcher reads first), paged in matrix order
        Index("ix_item_evaluation_verdict", "evaluation_id", "verdict", "idx"),
    )

    id: int | None = Field(default=None, primary_key=True)
    evaluation_id: str = Field(foreign_key="evaluation.id", max_length=40)
    key: str = Field(max_length=64)
    idx: int
    scenario_id: str = Field(max_length=40)
    condition_id: str = Field(max_length=48)
    user_context_id: str | None = Field(default=None, max_length=48)
    perturbation_id: str = Field(max_length=48)
    repeat: int = 0
    # The suite kind that played it (app/kinds), so every reader picks the kind's code from the row itself
    # rather than from the shape of its ids; rows written before it was stored are backfilled by migration 0022.
    item_kind: str = Field(default="matrix", max_length=24, sa_column_kwargs={"server_default": "matrix"})
    messages: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    reply: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    error_class: str | None = Field(default=None, max_length=40)
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    attempts: int = 0
    latency_ms: float | None = None
    usage: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    verdict: str | None = Field(default=None, max_length=20)
    score: float | None = None
    checks: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    reasons: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # grading: every raw judge answer, with the aggregate, so a verdict can be audited
    judge: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    # grading: each panel judge's score, None where one gave no usable answer; the rules' own 1–5 grade and its
    # parts. Scalars beside the `judge` JSON so the report reads them without raw answers.
    panel_scores: list[float | None] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    # each panel judge's outcome (scored, refused, unavailable, unanswered, unparseable), for the report
    judge_outcomes: list[str | None] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    rules_score: int | None = None
    likert: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)


class ItemTally(SQLModel, table=True):
    """Items written, counted per stretch of a run's matrix (`slot`: idx // TALLY_SLOT) and error class ("" for
    none), in the same transaction that writes them (app/store/tallies.py).

    Why: a status poll or a live stream reads these few rows instead of counting every item of the run (a count
    that grows with the run: the largest statement left in PostgreSQL's time at a big run's end). Why per slot:
    a shard's writers add to rows of their own, so workers writing one run never wait for one hot row."""

    __tablename__ = "item_tally"

    evaluation_id: str = Field(foreign_key="evaluation.id", primary_key=True, max_length=40)
    slot: int = Field(primary_key=True)
    error_class: str = Field(default="", primary_key=True, max_length=40)
    written: int = 0
    graded: int = 0  # with a verdict that counts in the pass rate
    passed: int = 0
    retries: int = 0  # target calls beyond each item's first


class ItemLabel(SQLModel, table=True):
    """A human label for one item, to calibrate the checks and the judge; a new upload for a key replaces it."""

    __tablename__ = "item_label"
    __table_args__ = (UniqueConstraint("evaluation_id", "key", name="uq_label_key"),)

    id: int | None = Field(default=None, primary_key=True)
    team_id: str = Field(foreign_key="team.id", index=True, max_length=40)
    evaluation_id: str = Field(foreign_key="evaluation.id", max_length=40)
    key: str = Field(max_length=64)
    verdict: str | None = Field(default=None, max_length=20)
    score: int | None = None
    checks: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class Webhook(SQLModel, table=True):
    """A team's subscription: evaluation outcomes are POSTed to url, signed with its sealed secret."""

    id: str = Field(default_factory=lambda: new_id("wh"), primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", index=True, max_length=40)
    url: str = Field(max_length=2000)
    events: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # Sealed, as every column whose name ends in `_secret`; the column keeps the name the schema gave it.
    signing_secret: str = Field(sa_column=Column("secret_secret", Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    deleted_at: datetime | None = None


class WebhookMessage(SQLModel, table=True):
    """The outbox: written in the transaction that settles an evaluation or a grade batch (its subject, one of
    the two ids), so a crash cannot lose it."""

    __tablename__ = "webhook_message"
    __table_args__ = (
        UniqueConstraint("webhook_id", "evaluation_id", "event_type", name="uq_webhook_message_event"),
        UniqueConstraint("webhook_id", "grade_batch_id", "event_type", name="uq_webhook_message_batch_event"),
        Index("ix_webhook_message_due", "state", "next_attempt_at"),
    )
    id: str = Field(default_factory=lambda: new_id("msg"), primary_key=True, max_length=40)
    webhook_id: str = Field(foreign_key="webhook.id", index=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", max_length=40)
    evaluation_id: str | None = Field(default=None, foreign_key="evaluation.id", max_length=40)
    grade_batch_id: str | None = Field(default=None, foreign_key="grade_batch.id", max_length=40)
    event_type: str = Field(max_length=40)
    state: str = Field(default="pending", max_length=20)
    attempts: int = 0
    next_attempt_at: datetime = Field(default_factory=utcnow)
    lease_until: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None


class WebhookDelivery(SQLModel, table=True):
    """One attempt to deliver a message: what the receiver answered, or why nothing arrived."""

    __tablename__ = "webhook_delivery"

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(foreign_key="webhook_message.id", index=True, max_length=40)
    webhook_id: str = Field(foreign_key="webhook.id", index=True, max_length=40)
    attempt: int
    ok: bool = False
    status_code: int | None = None
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    duration_ms: float = 0.0
    created_at: datetime = Field(default_factory=utcnow)


class ServiceLease(SQLModel, table=True):
    """A duty that one process at a time performs (re-queueing shards): its holder renews it before it lapses."""

    __tablename__ = "service_lease"

    name: str = Field(primary_key=True, max_length=40)
    holder: str = Field(max_length=200)
    lease_until: datetime


class QueuedJob(SQLModel, table=True):
    """A job waiting for, or held by, a local worker (the embedded default's queue, kept in the database).

    A holder keeps `lease_until` ahead of the clock while it runs the job; a lapsed lease (its holder died) makes
    the job claimable again, as an expired in-progress key does on Redis. A finished job's row is deleted.
    """

    __tablename__ = "queued_job"

    id: str = Field(primary_key=True, max_length=120)  # the queue's job id (app/queue/base.py)
    kind: str = Field(max_length=10)  # "shard" or "grade"
    subject_id: str = Field(max_length=40)  # the evaluation or grade batch
    shard: int
    rank: int = Field(default=0, index=True)  # the fair share's order of claims (app/queue/fair.py)
    queued_at: datetime = Field(default_factory=utcnow, index=True)
    available_at: datetime = Field(default_factory=utcnow)
    holder: str | None = Field(default=None, max_length=200)
    lease_until: datetime | None = None


WHOLE = ""  # the board_figures slice of a whole evaluation


def slice_name(kind: str, key: str) -> str:
    """A board_figures slice: "country:US", "condition:roleplay"."""
    return f"{kind}:{key}"


class BoardFigures(SQLModel, table=True):
    """What the leaderboard shows of one evaluation, whole (slice "") or for one country or condition
    ("country:US", "condition:roleplay"): written with the report, so a board reads a small row per evaluation
    instead of whole reports, and a filtered board never reads items."""

    __tablename__ = "board_figures"

    evaluation_id: str = Field(foreign_key="evaluation.id", primary_key=True, max_length=40)
    slice: str = Field(primary_key=True, max_length=80)
    figures: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    # The evaluation's finish, beside its figures: on SQLite a column stored after the large report (as
    # evaluation.finished_at is) is read by walking the report's overflow pages, for every row of a board.
    finished_at: datetime


class BoardStamp(SQLModel, table=True):
    """Bumped in the transaction that writes or removes board figures of a benchmark version, so a board kept by
    any API replica is known stale even when no evaluation was added (a report rewritten, one unpublished)."""

    __tablename__ = "board_stamp"

    benchmark_version: str = Field(primary_key=True, max_length=40)
    changes: int = 0


class Schedule(SQLModel, table=True):
    """A team's recurring evaluation of one target; next_run_at is claimed with a guarded update per tick."""

    id: str = Field(default_factory=lambda: new_id("sch"), primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", index=True, max_length=40)
    target_id: str = Field(foreign_key="target.id", max_length=40)
    suite: str = Field(max_length=40)
    repeats: int = 1
    cron: str | None = Field(default=None, max_length=200)
    every_minutes: int | None = None
    baseline: str = Field(default="previous", max_length=40, description='"previous" or an evaluation id')
    alert: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    paused: bool = False
    next_run_at: datetime = Field(index=True)
    last_run_at: datetime | None = None
    last_evaluation_id: str | None = Field(default=None, max_length=40)
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    deleted_at: datetime | None = None


class Regression(SQLModel, table=True):
    """One metric of a finished evaluation that dropped significantly, and by more than allowed, from its
    baseline; kept so the report page, GET /v1/regressions and the webhook all read the same finding."""

    __table_args__ = (
        UniqueConstraint("evaluation_id", "metric", name="uq_regression_metric"),
        Index("ix_regression_team_created", "team_id", "created_at"),
    )
    id: str = Field(default_factory=lambda: new_id("reg"), primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", max_length=40)
    evaluation_id: str = Field(foreign_key="evaluation.id", index=True, max_length=40)
    baseline_evaluation_id: str = Field(max_length=40)
    schedule_id: str | None = Field(default=None, max_length=40)
    metric: str = Field(max_length=80)
    test: str = Field(max_length=20)
    baseline_value: float
    value: float
    difference: float
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float
    p_adjusted: float
    n_pairs: int
    flipped_keys: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class GradeBatch(SQLModel, table=True):
    """A team's upload of free transcripts (production logs) graded in the background, line by line."""

    __tablename__ = "grade_batch"

    id: str = Field(default_factory=lambda: new_id("gb"), primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", index=True, max_length=40)
    # uploading → queued (every line stored) → running → succeeded (every line graded or refused)
    status: str = Field(default="uploading", max_length=20, index=True)
    lines: int = 0
    bad: int = 0
    graded: int = 0
    last_line: int = 0  # the upload's last line number (blank lines count): shards are ranges of line numbers
    # The report, computed once by the job that completes the batch (a settled batch no longer changes).
    summary: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # Set when the lines were erased and only the report kept: results then answer 410.
    transcripts_deleted_at: datetime | None = None
    # Set when the retention sweep removed the lines' transcripts (the grades stay): after how many days.
    transcripts_removed_after_days: int | None = None


class GradeBatchLine(SQLModel, table=True):
    """One line of a batch: the transcript as validated, then its grade (written once), or why it was refused.

    (batch_id, line) is unique, and a grade is only written where none is, so a job run twice grades a line once.
    """

    __tablename__ = "grade_batch_line"
    __table_args__ = (UniqueConstraint("batch_id", "line", name="uq_grade_batch_line"),)

    id: int | None = Field(default=None, primary_key=True)
    batch_id: str = Field(foreign_key="grade_batch.id", max_length=40)
    line: int
    transcript: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    verdict: str | None = Field(default=None, max_length=20)
    error_field: str | None = Field(default=None, max_length=200)
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class AuditEvent(SQLModel, table=True):
    """Who read or deleted people's words: one row per read of transcripts and per delete, never changed.

    No foreign keys: the record must outlive the key, the team and the object it names."""

    __tablename__ = "audit_event"
    __table_args__ = (Index("ix_audit_event_team_id", "team_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    key_id: str | None = Field(default=None, max_length=40)  # None: a public read without a key
    team_id: str | None = Field(default=None, max_length=40)  # the key's team
    action: str = Field(max_length=40)
    object_type: str = Field(max_length=40)
    object_id: str = Field(max_length=80)
    created_at: datetime = Field(default_factory=utcnow)


class BrowserSession(SQLModel, table=True):
    """A browser signed in with an API key: only a hash of the cookie's token is kept, so a database read gives
    no one a way in. Gone with the key (revoked keys' sessions are deleted and never match)."""

    __tablename__ = "browser_session"

    id: str = Field(default_factory=lambda: new_id("bs"), primary_key=True, max_length=40)
    token_hash: str = Field(unique=True, max_length=64)
    key_id: str = Field(foreign_key="apikey.id", index=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", max_length=40)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime


class ShareLink(SQLModel, table=True):
    """A read-only link to one evaluation's report page for people without a key; only the token's hash is kept."""

    __tablename__ = "share_link"

    id: str = Field(default_factory=lambda: new_id("shr"), primary_key=True, max_length=40)
    token_hash: str = Field(unique=True, max_length=64)
    evaluation_id: str = Field(foreign_key="evaluation.id", index=True, max_length=40)
    team_id: str = Field(foreign_key="team.id", max_length=40)
    created_by: str | None = Field(
        default=None, max_length=40
    )  # the key id; no foreign key, kept for the record
    label: str | None = Field(default=None, max_length=200)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    revoked_at: datetime | None = None
