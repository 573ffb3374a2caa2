"""Send due outbox messages signed the Standard Webhooks way; each attempt is a row; retries back off."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import structlog
from sqlalchemy import Engine
from sqlmodel import Session
from standardwebhooks.webhooks import Webhook as Signer

from app.config import Settings
from app.net.client import make_client
from app.net.ssrf import Allowlist
from app.runner.runtime import Runtime
from app.scoring.vocabulary import legible
from app.security.secrets import SecretBox
from app.services.regressions import regressions_body
from app.store import outbox as outbox_store
from app.store.models import Evaluation, GradeBatch, Webhook, WebhookDelivery, WebhookMessage, utcnow
from app.store.outbox import REGRESSED_EVENT, STALLED_EVENT
from app.store.retry import db_call, describe, is_transient

log = structlog.get_logger("helmbench.webhooks")

LEASE_S = 60.0  # a claimed message is re-claimable after this, should its sender die mid-attempt
BATCH = 32
MAX_RESPONSE_BYTES = 64 * 1024


@dataclass(frozen=True)
class DeliveryPolicy:
    max_attempts: int
    backoff_s: float
    backoff_max_s: float
    timeout_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> DeliveryPolicy:
        return cls(
            settings.webhook_max_attempts,
            settings.webhook_backoff_s,
            settings.webhook_backoff_max_s,
            settings.webhook_timeout_s,
        )

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): doubling, capped."""
        return min(self.backoff_max_s, self.backoff_s * 2 ** (attempt - 1))


@dataclass(frozen=True)
class Outgoing:
    message_id: str
    webhook_id: str
    url: str
    secret: str | None
    attempt: int
    body: str


def payload(evaluation: Evaluation, event_type: str, regressions: list[dict[str, Any]] | None = None) -> str:
    """The JSON body: the same bytes on every attempt, since a settled evaluation no longer changes.

    A stalled event is sent while the evaluation still runs; its `stalled` reason is the one at the attempt
    (null if progress resumed before the receiver could be reached)."""
    summary = evaluation.summary or {}
    headline = summary.get("headline") or {}
    readable = legible(headline) if headline else {}
    data: dict[str, Any] = {
        "evaluation_id": evaluation.id,
        "status": evaluation.status,
        "target_id": evaluation.target_id,
        "target_name": evaluation.target_name,
        "model": evaluation.model,
        "suite": evaluation.suite,
        "repeats": evaluation.repeats,
        "total": evaluation.total,
        "benchmark_version": evaluation.benchmark_version,
        "error": evaluation.error,
        "stalled": evaluation.stalled,
        "headline_score": headline.get("score"),  # 0–1, as stored; the next two as pages show it
        "headline_score_100": readable.get("score_100"),
        "headline_band": readable.get("band"),
        "pass_rate": summary.get("overall", {}).get("pass_rate"),
        "report_url": f"/v1/evaluations/{evaluation.id}/report",
    }
    if event_type == REGRESSED_EVENT:  # each: metric, both values, the difference's interval, items flipped
        data["baseline_evaluation_id"] = evaluation.baseline_evaluation_id
        data["regressions"] = regressions or []
    stamp = (evaluation.stalled_at if event_type == STALLED_EVENT else None) or (
        evaluation.finished_at or evaluation.created_at
    )
    body = {"type": event_type, "timestamp": stamp.isoformat(), "data": data}
    return json.dumps(body, separators=(",", ":"))


def batch_payload(batch: GradeBatch, event_type: str) -> str:
    """The JSON body of a grade batch's event: its counts and where its results are."""
    data: dict[str, Any] = {
        "grade_batch_id": batch.id,
        "status": batch.status,
        "lines": batch.lines,
        "graded": batch.graded,
        "bad": batch.bad,
        "error": batch.error,
        "results_url": f"/v1/grade/batches/{batch.id}/results",
        "report_url": f"/v1/grade/batches/{batch.id}/report",
    }
    stamp = batch.finished_at or batch.created_at
    return json.dumps(
        {"type": event_type, "timestamp": stamp.isoformat(), "data": data}, separators=(",", ":")
    )


def _body(session: Session, message: WebhookMessage) -> str | None:
    """The message's body, from its evaluation or its grade batch; None if that is gone."""
    if message.grade_batch_id is not None:
        batch = session.get(GradeBatch, message.grade_batch_id)
        return batch_payload(batch, message.event_type) if batch else None
    evaluation = session.get(Evaluation, message.evaluation_id)
    if evaluation is None:
        return None
    regressions = regressions_body(session, evaluation.id) if message.event_type == REGRESSED_EVENT else None
    return payload(evaluation, message.event_type, regressions)


def claim_due(*, engine: Engine, secrets: SecretBox, now: datetime | None = None) -> list[Outgoing]:
    """Lease up to BATCH due messages with a guarded update each, so two senders never send one attempt."""
    now = now or utcnow()
    claimed: list[Outgoing] = []
    with Session(engine) as session:
        for message in outbox_store.due_messages(session=session, now=now, limit=BATCH):
            if not outbox_store.lease_message(
                session=session, message_id=message.id, now=now, lease_s=LEASE_S
            ):
                continue
            hook = session.get(Webhook, message.webhook_id)
            body = _body(session, message)
            if body is None:
                continue
            live = hook is not None and hook.deleted_at is None
            claimed.append(
                Outgoing(
                    message_id=message.id,
                    webhook_id=message.webhook_id,
                    url=hook.url if hook else "",
                    secret=secrets.decrypt(hook.signing_secret) if live and hook else None,
                    attempt=message.attempts + 1,
                    body=body,
                )
            )
        session.commit()
    return claimed


async def send(client: httpx.AsyncClient, out: Outgoing) -> tuple[int | None, str | None]:
    """POST one signed attempt; returns (status code, error). Only a 2xx counts as delivered."""
    if out.secret is None:
        return None, "the webhook was deleted"
    sent_at = datetime.now(UTC)
    headers = {
        "content-type": "application/json",
        "user-agent": "HELMbench-Webhooks/1",
        "webhook-id": out.message_id,
        "webhook-timestamp": str(int(sent_at.timestamp())),
        "webhook-signature": Signer(out.secret).sign(out.message_id, sent_at, out.body),
    }
    try:
        async with client.stream("POST", out.url, content=out.body.encode(), headers=headers) as response:
            status = response.status_code
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500]
    return status, None if 200 <= status < 300 else f"the receiver answered {status}"


def record(
    *,
    engine: Engine,
    out: Outgoing,
    status: int | None,
    error: str | None,
    duration_ms: float,
    policy: DeliveryPolicy,
) -> str:
    """Write the attempt and move the message on: delivered, failed for good, or pending after a backoff."""
    now = utcnow()
    ok = error is None
    final = out.secret is None or out.attempt >= policy.max_attempts
    state = "delivered" if ok else ("failed" if final else "pending")
    attempt = WebhookDelivery(
        message_id=out.message_id,
        webhook_id=out.webhook_id,
        attempt=out.attempt,
        ok=ok,
        status_code=status,
        error=error,
        duration_ms=round(duration_ms, 2),
    )
    with Session(engine) as session:
        outbox_store.record_attempt(
            session=session,
            attempt=attempt,
            state=state,
            retry_at=now + timedelta(seconds=policy.backoff(out.attempt)),
            now=now,
        )
        session.commit()
    return state


async def deliver_due(deps: Runtime, client: httpx.AsyncClient, policy: DeliveryPolicy) -> int:
    """One pass: claim what is due, send it concurrently, record each attempt. Returns attempts made.

    Recording is retried through a dropped database connection (app/store/retry.py); one that still fails is
    logged, and the message's lease lapses so a later pass sends it again: at least once, never lost.
    """
    budget = deps.settings.db_retry_s
    batch = await db_call(0, claim_due, engine=deps.engine, secrets=deps.secrets)

    async def one(out: Outgoing) -> None:
        started = time.perf_counter()
        status, error = await send(client, out)
        state = await db_call(
            budget,
            record,
            engine=deps.engine,
            out=out,
            status=status,
            error=error,
            duration_ms=(time.perf_counter() - started) * 1000,
            policy=policy,
        )
        log.info(
            "webhook attempt",
            message_id=out.message_id,
            webhook_id=out.webhook_id,
            attempt=out.attempt,
            status_code=status,
            state=state,
        )

    results = await asyncio.gather(*(one(out) for out in batch), return_exceptions=True)
    for out, result in zip(batch, results, strict=True):
        if isinstance(result, Exception):
            log.warning(
                "webhook attempt not recorded; it is sent again after its lease",
                message_id=out.message_id,
                error=describe(result),
            )
    return len(batch)


def webhook_client(settings: Settings) -> httpx.AsyncClient:
    """The guarded client: receivers are SSRF-checked again at call time, redirects are not followed."""
    return make_client(
        max_connections=BATCH,
        timeout=settings.webhook_timeout_s,
        allowlist=Allowlist.parse(settings.target_allowlist),
        max_response_bytes=MAX_RESPONSE_BYTES,
    )


async def delivery_loop(deps: Runtime) -> None:
    """Runs for the life of the process: sends what is due every webhook_poll_s, survives any one failure."""
    policy = DeliveryPolicy.from_settings(deps.settings)
    async with webhook_client(deps.settings) as client:
        while True:
            try:
                sent = await deliver_due(deps, client, policy)
            except Exception as exc:  # a database outage must not end delivery for the life of the process
                if is_transient(exc):
                    log.warning("webhook delivery pass failed", error=describe(exc))
                else:
                    log.exception("webhook delivery pass failed")
                sent = 0
            if sent < BATCH:
                await asyncio.sleep(deps.settings.webhook_poll_s)


def start_delivery(deps: Runtime) -> asyncio.Task[None]:
    return asyncio.create_task(delivery_loop(deps), name="helmbench-webhooks")


async def stop_delivery(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
