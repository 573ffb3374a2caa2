"""arq WorkerSettings. Durable state lives in the database; the job is re-entrant and keyed per shard."""

from __future__ import annotations

from typing import Any

from arq import func
from arq.connections import RedisSettings
from prometheus_client import start_http_server

from app.config import Settings
from app.observability.logging import configure_logging
from app.queue.arq_queue import SHARD_JOB
from app.runner.deps import build_deps
from app.runner.shard import run_shard
from app.workers.lease import held

# A SIGKILLed worker's job returns with its try count raised; a shard is re-entrant, so many tries are fine.
SHARD_MAX_TRIES = 1000


async def startup(ctx: dict[str, Any]) -> None:
    settings: Settings = ctx.get("settings") or Settings()
    configure_logging(settings.log_level)
    if settings.worker_metrics_port:
        start_http_server(settings.worker_metrics_port)
    ctx["deps"] = build_deps(settings)


async def shutdown(ctx: dict[str, Any]) -> None:
    deps = ctx.get("deps")
    if deps is not None:
        await deps.targets.aclose()
        deps.engine.dispose()


async def run_shard_job(ctx: dict[str, Any], evaluation_id: str, shard: int) -> str:
    deps = ctx["deps"]
    async with held(ctx.get("redis"), ctx.get("job_id"), deps.settings.shard_lease_s):
        return await run_shard(deps, evaluation_id, shard)


def worker_settings(settings: Settings) -> dict[str, Any]:
    """Settings for arq.run_worker; one place so the CLI and tests start identical workers."""
    if not settings.redis_url:
        raise ValueError("HELMBENCH_REDIS_URL must be set to run a worker")
    return {
        "functions": [func(run_shard_job, name=SHARD_JOB, max_tries=SHARD_MAX_TRIES)],
        "on_startup": startup,
        "on_shutdown": shutdown,
        "redis_settings": RedisSettings.from_dsn(settings.redis_url),
        "queue_name": settings.queue_name,
        "max_jobs": settings.worker_max_jobs,
        "job_timeout": settings.job_timeout_s,
        "allow_abort_jobs": True,
        "keep_result": 60,
        "poll_delay": 0.5,
        "ctx": {"settings": settings},
        "handle_signals": True,
    }


def _default_settings() -> Settings:
    settings = Settings()
    return (
        settings
        if settings.redis_url
        else settings.model_copy(update={"redis_url": "redis://127.0.0.1:6379"})
    )


# For `arq app.workers.settings.WorkerSettings`; `helmbench worker` is the usual way in.
WorkerSettings = type("WorkerSettings", (), worker_settings(_default_settings()))
