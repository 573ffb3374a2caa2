"""The one settings class. Every value comes from a HELMBENCH_* environment variable or its default."""

from __future__ import annotations

from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.benchmark.loader import DEFAULT_DATA_DIR
from app.judge_spec import JudgeCreate, distinct_judges


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HELMBENCH_", extra="ignore", env_ignore_empty=True)

    var_dir: Path = Field(default=Path("var"), description="SQLite file and admin.key live here.")
    database_url: str | None = Field(
        default=None, description="Unset: SQLite in var_dir. postgresql://… works as is."
    )
    redis_url: str | None = Field(
        default=None,
        description="Unset: jobs run on this machine (see HELMBENCH_LOCAL_WORKER). Set: arq workers.",
    )
    data_dir: Path = Field(
        default=DEFAULT_DATA_DIR,
        description="The benchmark library (a folder of YAML); unset: the library the package ships, so an "
        "installed wheel runs from any folder.",
    )

    target_concurrency: int = Field(
        default=16, ge=1, le=1024, description="Default in-flight calls per target."
    )
    target_max_concurrency: int = Field(
        default=256, ge=1, le=4096, description="Upper bound a target may ask for."
    )
    request_timeout_s: float = Field(
        default=60.0, gt=0, description="One call to a target, connect to last byte."
    )
    max_retries: int = Field(default=4, ge=0, le=20, description="Retries per item after the first attempt.")
    retry_budget_s: float = Field(default=120.0, gt=0, description="Total time an item may spend retrying.")
    max_reply_bytes: int = Field(default=2_000_000, ge=1024, description="Largest target response body read.")
    probe_endpoints: bool = Field(
        default=True,
        description="Registering or changing a target and creating an evaluation first call the target, "
        'judges and simulator once (a request\'s `"probe": false` skips it); false: never, e.g. where the API '
        "cannot reach endpoints that its workers can.",
    )
    probe_timeout_s: float = Field(
        default=15.0,
        gt=0,
        le=120,
        description="Longest a probe's call may take (the endpoint's own, if shorter).",
    )
    breaker_after: int = Field(
        default=5,
        ge=1,
        le=1000,
        description="A run whose target (or simulator) fails every attempt of this many items in a row pauses "
        "for breaker_cooldown_s, tries one item, and fails with the reason if that fails too; a judge that "
        "answers none of this many items is left alone as long, its items unscored with the reason.",
    )
    breaker_cooldown_s: float = Field(
        default=10.0, ge=0, le=600, description="How long an open breaker waits before its one trial item."
    )
    target_allowlist: str = Field(
        default="", description="CIDRs/host names admitted besides public addresses."
    )

    shard_size: int = Field(default=500, ge=1, description="Items per queued job; shards run on any worker.")
    job_timeout_s: int = Field(
        default=3600,
        ge=5,
        description="Longest a shard job may run before arq stops it (a killed worker's shard resumes "
        "within HELMBENCH_SHARD_LEASE_S, not this).",
    )
    worker_max_jobs: int = Field(
        default=4,
        ge=1,
        description=(
            "Shards one worker process takes items for at once. A shard makes room for the next when it has "
            "handed out its last item, so the next one starts while its last calls are out; the target's "
            "concurrency cap bounds all their calls together."
        ),
    )
    local_worker: bool = Field(
        default=True,
        description="Embedded default (no Redis): `helmbench serve` runs shards and grade batches in local "
        "worker processes it starts, restarts and stops (`local_workers`), claiming them from the database under "
        "a lease, so the API's event loop only serves. false: they run inside the API process.",
    )
    local_workers: int = Field(
        default=2,
        ge=1,
        le=64,
        description="How many local worker processes `helmbench serve` starts (embedded default): two use a "
        "second core for grading and calls. They count a target's concurrency together (files under "
        "var_dir/gates) and each keeps 1/N of its per-minute budgets, so together they keep the target's limits.",
    )
    local_worker_nice: int = Field(
        default=5,
        ge=0,
        le=19,
        description="How much lower the local worker processes' CPU priority is than the API's (Unix nice). On a "
        "busy machine the API then answers pollers and pages first while a run takes what CPU is left; 0 shares "
        "the CPU equally.",
    )
    max_repeats: int = Field(default=10, ge=1, description="Largest `repeats` an evaluation may ask for.")

    # runner: worker leases, metrics and logs
    shard_lease_s: float = Field(
        default=15.0,
        ge=2,
        le=600,
        description="How long a worker's hold on a running shard (and on its target slots) lasts unrenewed; "
        "it renews every second (every third of this if shorter). If it dies, another worker resumes the shard "
        "after this; its slots come back within seconds (its connection closes), after this at the latest.",
    )
    db_retry_s: float = Field(
        default=30.0,
        ge=0,
        le=600,
        description="A database call on the run path retries a dropped connection (with jittered backoff) "
        "this long; past it the shard fails loudly and is run again, skipping the items written.",
    )
    reconcile_period_s: float = Field(
        default=5.0,
        gt=0,
        le=300,
        description="How often one process (API or worker, chosen by a database lease) re-queues shards "
        "of running evaluations that are neither queued nor held, settles finished ones and checks for stalls.",
    )
    scheduler_period_s: float = Field(
        default=15.0,
        gt=0,
        le=300,
        description="How often every API process and worker looks for due schedules; each due tick is "
        "claimed in the database, so it starts once however many look.",
    )
    transcript_retention_days: int | None = Field(
        default=None,
        ge=1,
        le=36500,
        description="Service default for how long the text of items and grade batch lines is kept after its "
        "evaluation or batch finished; a team's own transcript_retention_days wins. Unset: until deleted.",
    )
    retention_period_s: float = Field(
        default=3600.0,
        gt=0,
        le=86400,
        description="How often one process (chosen by a database lease) removes the text that outlived its "
        "retention, keeping the grades and reports.",
    )
    scheduler_clock_rate: float = Field(
        default=1.0,
        ge=1.0,
        le=3600.0,
        description="Drills and tests only: schedule time runs this many times faster than wall time from "
        "HELMBENCH_SCHEDULER_CLOCK_EPOCH (at 60 a one-minute schedule ticks every second). Every API process "
        "and worker of a deployment must share the rate and the epoch; 1 (the default) is wall time.",
    )
    scheduler_clock_epoch: datetime | None = Field(
        default=None,
        description="The instant (ISO 8601, with a zone) from which HELMBENCH_SCHEDULER_CLOCK_RATE speeds "
        "schedule time up; required when the rate is not 1.",
    )
    stall_after_s: float = Field(
        default=300.0,
        gt=0,
        description="An evaluation with items left and none written for this long (while not merely "
        "waiting behind other work) is marked stalled, with the reason; cleared when progress resumes.",
    )
    stall_fail_s: float = Field(
        default=3600.0,
        gt=0,
        description="A stalled evaluation with no progress for this long fails with the stall's reason.",
    )
    stop_grace_s: float = Field(
        default=10.0,
        ge=0,
        le=600,
        description="On SIGTERM a worker (or `helmbench serve`) takes no new items and lets calls in flight "
        "finish for this long; the rest are handed back to the queue.",
    )
    worker_metrics_port: int | None = Field(
        default=None, ge=1, le=65535, description="Serve a worker's Prometheus metrics on this port."
    )
    log_level: str = Field(
        default="info", description="Structured (JSON) log level: debug, info, warning, error."
    )
    queue_name: str = Field(
        default="helmbench:queue",
        min_length=1,
        description="Redis queue the API fills and workers drain; one per deployment.",
    )

    # grading: the default LLM judge (any OpenAI-compatible endpoint); unset base URL or model = no judge
    judge_base_url: str | None = Field(
        default=None,
        description="Default judge endpoint, e.g. https://api.example.com/v1; unset: replies get the rules' "
        "1-5 grade alone unless an evaluation brings its own judge.",
    )
    judge_model: str | None = Field(default=None, description="Model name sent to the default judge.")
    judge_api_key: str | None = Field(default=None, description="Bearer key of the default judge.")
    judge_kind: Literal["openai_chat", "anthropic_messages"] = Field(
        default="openai_chat", description="The API the default judge speaks."
    )
    judge_params: dict[str, Any] = Field(
        default_factory=dict,
        description="JSON parameters sent to the default judge, merged over temperature 0 and the seed; null "
        'drops one (a reasoning model: {"temperature": null, "seed": null}).',
    )
    judge_samples: int = Field(
        default=1, ge=1, le=9, description="Judge answers per item (k): median score, majority verdict."
    )
    judge_seed: int = Field(
        default=20240917,
        description="Seed sent with every OpenAI-compatible judge call (sample i uses seed+i), with temperature "
        "0, unless the judge's params drop them.",
    )
    judge_parse_retries: int = Field(
        default=2,
        ge=0,
        le=5,
        description="Times an unparseable judge answer is asked again before the item is left unscored.",
    )
    judges: list[JudgeCreate] | None = Field(
        default=None,
        min_length=1,
        max_length=3,
        description="Default judge panel instead of HELMBENCH_JUDGE_BASE_URL/_MODEL: a JSON list of 1-3 "
        '{"base_url", "model", "api_key"?, "samples"?}; the item gets the median of their scores.',
    )

    # simulated users: the default simulator (any OpenAI-compatible endpoint) and the rules of its conversations
    simulator_base_url: str | None = Field(
        default=None,
        description="Default simulator endpoint for the `simulated` suite, e.g. https://api.example.com/v1; "
        "unset: an evaluation of that suite must bring its own `simulator`.",
    )
    simulator_model: str | None = Field(default=None, description="Model name sent to the default simulator.")
    simulator_api_key: str | None = Field(default=None, description="Bearer key of the default simulator.")
    simulator_kind: Literal["openai_chat", "anthropic_messages"] = Field(
        default="openai_chat", description="The API the default simulator speaks."
    )
    simulator_params: dict[str, Any] = Field(
        default_factory=dict,
        description="JSON parameters sent to the default simulator, merged over max_tokens (sized to the word "
        'cap); null drops one (a reasoning model: {"max_tokens": null, "max_completion_tokens": 2000}).',
    )
    simulator_turn_cap: int = Field(
        default=20, ge=1, le=40, description="Most user turns (target calls) in one simulated conversation."
    )
    simulator_word_cap: int = Field(
        default=80, ge=5, le=400, description="Most words in one simulated user turn (longer turns are cut)."
    )
    simulator_min_turns: int = Field(
        default=3,
        ge=1,
        le=40,
        description="A simulated user that ends the conversation before this many turns is a simulator fault.",
    )
    simulator_retries: int = Field(
        default=2,
        ge=0,
        le=5,
        description="Times a faulty simulated turn (role inversion, leaked reasoning, empty, echoed, early "
        "stop) is asked again before the conversation ends as a simulator error.",
    )

    secret_keys: str | None = Field(
        default=None,
        description="Comma-separated Fernet keys for secrets at rest; the first encrypts. "
        "Unset: a key is generated once in var_dir/secret.key.",
    )

    # Trust: request limits, rate limits, registration-time DNS, slow clients.
    max_body_bytes: int = Field(
        default=1_000_000, ge=1024, description="Largest request body accepted (413 above)."
    )
    body_timeout_s: float = Field(
        default=15.0, gt=0, description="A request body must arrive within this time (408 after)."
    )
    grade_batch_max_lines: int = Field(
        default=100_000,
        ge=1,
        description="Most transcripts in one POST /v1/grade/batches upload (413 above); its body is streamed "
        "to the database, so max_body_bytes limits each line instead of the whole upload.",
    )
    grade_batch_shard_lines: int = Field(
        default=10_000,
        ge=1,
        description="Lines per grade batch job; a batch's jobs run on any worker at once, like shards.",
    )
    grade_batch_chunk_lines: int = Field(
        default=500, ge=1, description="Lines a grade batch writes per transaction, on upload and grading."
    )
    rate_per_minute: float = Field(
        default=600.0,
        ge=0,
        description="Requests per minute per API key (0 = off); with redis_url set, one budget for all "
        "API processes.",
    )
    rate_burst: int = Field(
        default=60, ge=1, description="Requests a key may make at once before rate_per_minute applies."
    )
    session_hours: int = Field(
        default=12,
        ge=1,
        le=24 * 30,
        description="How long a browser stays signed in on the pages (POST /sign-in with an API key); "
        "revoking the key signs it out at once.",
    )
    max_matrix_items: int = Field(
        default=100_000, ge=1, description="Largest evaluation (items = suite size x repeats); 422 above."
    )
    max_active_evaluations: int = Field(
        default=4, ge=1, description="Queued or running evaluations one team may have at once (429 above)."
    )
    dns_timeout_s: float = Field(
        default=3.0, gt=0, description="Registration-time DNS check of a URL; past it, call time decides."
    )
    keep_alive_timeout_s: int = Field(
        default=5, ge=1, description="`helmbench serve`: idle keep-alive connections close after this."
    )
    head_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="`helmbench serve`: a request line and headers must arrive within this.",
    )

    # Live progress, webhooks, HTTP caching and the CLI client
    cors_origins: str = Field(
        default="*",
        description="Browser origins that may read the public endpoints (leaderboard, "
        "catalogue, public reports); comma-separated, * for any. Never with credentials; no CORS elsewhere.",
    )
    events_poll_s: float = Field(
        default=0.5, gt=0, le=30, description="How often a live-progress stream (SSE) looks for progress."
    )
    webhook_max_attempts: int = Field(
        default=8, ge=1, le=20, description="Attempts at one webhook message before it is marked failed."
    )
    webhook_backoff_s: float = Field(
        default=5.0, gt=0, description="Wait before a webhook's first retry; it doubles with each attempt."
    )
    webhook_backoff_max_s: float = Field(
        default=3600.0, gt=0, description="Longest wait between two attempts of one webhook message."
    )
    webhook_timeout_s: float = Field(
        default=10.0, gt=0, description="One webhook POST, connect to last byte; longer counts as a failure."
    )
    webhook_poll_s: float = Field(
        default=1.0, gt=0, description="How often the API process sends the webhook messages that are due."
    )
    url: str = Field(
        default="http://127.0.0.1:8000",
        description="CLI client (`helmbench submit/watch/report/compare/export`): the server it talks to.",
    )
    key: str | None = Field(default=None, description="CLI client: the API key it sends as a Bearer token.")

    @model_validator(mode="after")
    def _one_default_judge_setting(self) -> Settings:
        if self.judges and (self.judge_base_url or self.judge_model):
            raise ValueError("set HELMBENCH_JUDGES or HELMBENCH_JUDGE_BASE_URL/_MODEL, not both")
        if self.judges:
            distinct_judges(self.judges)
        if self.simulator_min_turns > self.simulator_turn_cap:
            raise ValueError("HELMBENCH_SIMULATOR_MIN_TURNS must not exceed HELMBENCH_SIMULATOR_TURN_CAP")
        return self

    @model_validator(mode="after")
    def _fast_clock_has_an_epoch(self) -> Settings:
        epoch = self.scheduler_clock_epoch
        if self.scheduler_clock_rate != 1.0 and (epoch is None or epoch.tzinfo is None):
            raise ValueError(
                "HELMBENCH_SCHEDULER_CLOCK_RATE needs HELMBENCH_SCHEDULER_CLOCK_EPOCH with a zone"
            )
        return self

    @cached_property
    def sqlalchemy_url(self) -> str:
        """Our driver choice stays ours: a plain postgresql:// URL gets psycopg 3."""
        url = self.database_url or f"sqlite:///{(self.var_dir / 'helmbench.db').as_posix()}"
        for prefix in ("postgresql://", "postgres://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url

    @property
    def embedded(self) -> bool:
        return self.redis_url is None

    @property
    def admin_key_path(self) -> Path:
        return self.var_dir / "admin.key"
