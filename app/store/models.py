"""SQLModel tables. Everything a user owns carries team_id, so isolation never needs reshaping."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint
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
    # runner: per-target call shape and limits (migration 0005)
    max_tokens: int | None = None
    timeout_s: float | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    request_template: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    reply_pointer: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
    deleted_at: datetime | None = None


class Evaluation(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("team_id", "idempotency_key", name="uq_evaluation_idempotency"),
        Index("ix_evaluation_leaderboard", "visibility", "status", "benchmark_version"),
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
    # grading: the evaluation's own judge (migration 0002); its key is encrypted at rest like a target's
    judge_config: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    judge_api_key_secret: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, index=True)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # resilience: the reconciler's watch on progress (migration 0008). progress_done is the item count it last
    # saw; idle_since is when that count last stopped moving (None while it moves); stalled says why it stopped.
    progress_done: int = 0
    idle_since: datetime | None = None
    stalled: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    stalled_at: datetime | None = None


class EvaluationItem(SQLModel, table=True):
    """One matrix cell × repeat, written once: (evaluation_id, key) is unique and a second write is a no-op."""

    __tablename__ = "evaluation_item"
    __table_args__ = (
        UniqueConstraint("evaluation_id", "key", name="uq_item_key"),
        Index("ix_item_evaluation_idx", "evaluation_id", "idx"),
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
    # grading: every raw judge answer, with the aggregate (migration 0002)
    judge: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    # grading: each panel judge's score, None where one gave no usable answer; the rules' own 1–5 grade and its
    # parts (migration 0007). Scalars beside the `judge` JSON so the report reads them without raw answers.
    panel_scores: list[float | None] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    rules_score: int | None = None
    likert: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)


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
    secret_secret: str = Field(sa_column=Column(Text, nullable=False))
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
