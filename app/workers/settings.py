"""arq WorkerSettings. Durable state lives in the database; the job is re-entrant and keyed per shard."""

from __future__ import annotations

import time
from typing import Any

import structlog
from arq import func
from arq.worker import Retry
from prometheus_client import start_http_server

from app.background import start_background, stop_background
from app.config import Settings
from app.observability.logging import configure_logging
from app.queue.arq_queue import GRADE_BATCH_JOB, SHARD_JOB, ArqQueue, redis_settings
from app.queue.base import lost_shard_grace_s
from app.redis_connection import report_resets_as_lost
from app.runner.grade_batch import run_grade_batch
from app.runner.handback import HandedBack
from app.runner.runtime import build_runtime, warm_up
from app.runner.shard import run_shard
from app.services.regressions import check_for_regressions
from app.workers.lease import held
from app.workers.worker import ShardWorker

# A SIGKILLed worker's job returns with its try count raised; a shard is re-entrant, so many tries are fine.
SHARD_MAX_TRIES = 1000
# A shard that failed (its database writes past their retries) waits this long before any worker runs it again.
FAILED_SHARD_DEFER_S = 2.0
log = structlog.get_logger("helmbench.worker")


async def startup(ctx: dict[str, Any]) -> None:
    settings: Settings = ctx.get("settings") or Settings()
    configure_logging(settings.log_level)
    if settings.worker_metrics_port:
        start_http_server(settings.worker_metrics_port)
    await report_resets_as_lost(ctx["redis"])  # before the shards' lease renewals and the queue use it
    deps = ctx["deps"] = build_runtime(settings, on_settled=check_for_regressions)
    queue = ArqQueue(ctx["redis"], settings.queue_name)  # the worker's own pool: arq closes it
    ctx["background"] = start_background(
        deps,
        queue,
        kind="worker",
        grace_s=lost_shard_grace_s(settings.shard_lease_s),
        warm=lambda: warm_up(deps),
    )
    # What a start costs (imports, the library): a replacement for a killed worker takes shards only after it.
    log.info("worker started", cpu_s=round(time.process_time(), 2))


async def shutdown(ctx: dict[str, Any]) -> None:
    if "background" in ctx:
        await stop_background(ctx["background"])
    deps = ctx.get("deps")
    if deps is not None:
        await deps.targets.aclose()
        deps.engine.dispose()


async def run_shard_job(ctx: dict[str, Any], evaluation_id: str, shard: int) -> str:
    """The arq edge of run_shard: a shard handed back or failed goes back to the queue, for any worker."""
    deps = ctx["deps"]
    async with held(ctx.get("redis"), ctx.get("job_id"), deps.settings.shard_lease_s):
        try:
            return await run_shard(deps, evaluation_id, shard, await deps.places.take(evaluation_id))
        except HandedBack:
            raise Retry() from None  # queued again at once, its lock deleted: another worker takes it now
        except Exception as exc:
            log.error(
                "shard failed; queued again",
                evaluation_id=evaluation_id,
                shard=shard,
                error=f"{type(exc).__name__}: {exc}"[:500],
                exc_info=True,
            )
            raise Retry(defer=FAILED_SHARD_DEFER_S) from exc


async def grade_batch_job(ctx: dict[str, Any], batch_id: str, shard: int) -> str:
    """The arq edge of run_grade_batch: a failed or handed-back run goes back to the queue, for any worker."""
    deps = ctx["deps"]
    async with held(ctx.get("redis"), ctx.get("job_id"), deps.settings.shard_lease_s):
        place = await deps.places.take(batch_id)
        try:
            return await run_grade_batch(deps, batch_id, shard)
        except HandedBack:
            raise Retry() from None  # queued again at once, for any worker
        except Exception as exc:
            log.error(
                "grade batch failed; queued again",
                batch_id=batch_id,
                error=f"{type(exc).__name__}: {exc}"[:500],
            )
            raise Retry(defer=FAILED_SHARD_DEFER_S) from exc
        finally:
            place.give_back()


def worker_settings(settings: Settings) -> dict[str, Any]:
    """Settings for arq's Worker; one place so the CLI and tests start identical workers."""
    if not settings.redis_url:
        raise ValueError("HELMBENCH_REDIS_URL must be set to run a worker")
    return {
        "functions": [
            func(run_shard_job, name=SHARD_JOB, max_tries=SHARD_MAX_TRIES),
            func(grade_batch_job, name=GRADE_BATCH_JOB, max_tries=SHARD_MAX_TRIES),
        ],
        "on_startup": startup,
        "on_shutdown": shutdown,
        "redis_settings": redis_settings(settings.redis_url),
        "queue_name": settings.queue_name,
        # One job more than the shards that take items at once (deps.places): it waits for the place a shard
        # gives back when it has handed out its last item. More would keep shards another worker could run now.
        "max_jobs": settings.worker_max_jobs + 1,
        "job_timeout": settings.job_timeout_s,
        "allow_abort_jobs": True,
        "keep_result": 60,
        "poll_delay": 0.5,
        "ctx": {"settings": settings},
        "handle_signals": True,
    }


def make_worker(settings: Settings) -> ShardWorker:
    """The `helmbench worker` process: arq's worker with graceful stops and Redis outages survived."""
    return ShardWorker(
        lease_s=settings.shard_lease_s, stop_grace_s=settings.stop_grace_s, **worker_settings(settings)
    )


def _default_settings() -> Settings:
    settings = Settings()
    return (
        settings
        if settings.redis_url
        else settings.model_copy(update={"redis_url": "redis://127.0.0.1:6379"})
    )


# For `arq app.workers.settings.WorkerSettings`; `helmbench worker` is the usual way in.
WorkerSettings = type("WorkerSettings", (), worker_settings(_default_settings()))
