"""The FastAPI application: built by create_app(settings) so tests and `helmbench serve` build the same thing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlmodel import Session

from app.background import start_background, stop_background
from app.config import Settings
from app.deps import AppState
from app.http.body_cache import BodyCache, SingleFlight
from app.http.body_limit import BodyLimitMiddleware
from app.http.cors import PublicCORSMiddleware
from app.http.docs import app_with_offline_docs
from app.http.openapi import document_problems, operation_id
from app.http.problems import install_problem_handlers
from app.limits.api_rate import Limiter, RateLimiter
from app.limits.shared_api_rate import SharedRateLimiter
from app.pages.router import router as pages_router
from app.queue.arq_queue import ArqQueue
from app.queue.base import JobQueue, QueueUnavailable, lost_shard_grace_s
from app.queue.database import DatabaseQueue
from app.queue.inprocess import InProcessQueue
from app.routers import (
    audit,
    compare,
    evaluations,
    grade_batches,
    keys,
    labels,
    public,
    schedules,
    shares,
    targets,
    teams,
)
from app.routers import events as events_router
from app.routers import grade as grade_router
from app.routers import metrics as metrics_router
from app.routers import problems as problems_router
from app.routers import webhooks as webhooks_router
from app.runner.runtime import Runtime, build_runtime
from app.services.board_cache import BoardCache
from app.services.catalogue import catalogue_body
from app.services.evaluations import warm_plans
from app.services.events import STATUS_MAX_STALE_S
from app.services.redaction import redactor_for
from app.services.regressions import check_for_regressions
from app.shared_polls import SharedPolls
from app.store import grade_batches as grade_batch_store
from app.store.keys import ensure_admin_key
from app.store.migrate import upgrade
from app.workers.local_process import LocalWorkerProcess, wake_all


def _first_start(deps: Runtime) -> None:
    """Create the admin key on first start, print it once and keep it in var/admin.key (0600)."""
    with Session(deps.engine) as session:
        raw = ensure_admin_key(session=session, key_file=deps.settings.admin_key_path)
        session.commit()
    if raw:
        print(
            f"HELMbench admin key (shown once, also written to {deps.settings.admin_key_path}): {raw}",
            flush=True,
        )


def requeue_grace_s(settings: Settings) -> float:
    """How long a shard must look lost before the reconciler queues it again.

    Embedded, the queue knows exactly what runs (the in-process one its tasks, the database one its rows and
    leases), so at once (a restart resumes its runs on the first pass). With workers, a few renewals: a worker
    whose Redis came back empty re-asserts its hold by then.
    """
    return 0.0 if settings.embedded else lost_shard_grace_s(settings.shard_lease_s)


async def resume_grade_batches(deps: Runtime, queue: JobQueue) -> None:
    """Queue again the batches a stopped process left ungraded; a job already queued or running is kept."""
    with Session(deps.engine) as session:
        batches = grade_batch_store.active_batches(session=session)
    for batch_id, last_line in batches:
        try:
            shards = grade_batch_store.shard_count(last_line, deps.settings.grade_batch_shard_lines)
            await queue.enqueue_grade_batch(batch_id, shards)
        except QueueUnavailable:
            return


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.database_url is None:
            upgrade(settings)
        deps = build_runtime(settings, on_settled=check_for_regressions)
        _first_start(deps)
        queue: JobQueue
        limiter: Limiter
        local_workers: list[LocalWorkerProcess] = []
        if settings.redis_url:  # scale-out: replicas share the queue and each key's rate
            queue = await ArqQueue.connect(settings.redis_url, settings.queue_name)
            limiter = SharedRateLimiter.from_url(settings.redis_url, settings.queue_name)
        elif settings.local_worker:  # the API enqueues rows; its local worker processes run them
            local_workers = [LocalWorkerProcess(settings) for _ in range(settings.local_workers)]
            queue = DatabaseQueue(
                deps.engine,
                consumers_ready=lambda: any(w.ready for w in local_workers),
                on_queued=lambda: wake_all(local_workers),
            )
            limiter = RateLimiter()
            for worker in local_workers:
                worker.start()
        else:
            queue = InProcessQueue(deps)
            limiter = RateLimiter()
        app.state.helmbench = AppState(deps=deps, queue=queue, limiter=limiter)
        await resume_grade_batches(deps, queue)
        running = start_background(
            deps,
            queue,
            kind="api",
            grace_s=requeue_grace_s(settings),
            warm=lambda: (
                warm_plans(settings, deps.library),
                redactor_for(deps.library),
                catalogue_body(deps.library),
            ),
            boards=app.state.board_cache,
        )
        try:
            yield
        finally:
            await stop_background(running)
            await queue.close()
            await asyncio.gather(*(worker.stop() for worker in local_workers))
            limiter.close()
            deps.engine.dispose()

    app = app_with_offline_docs(  # /docs and /redoc render without internet
        title="HELMbench",
        generate_unique_id_function=operation_id,
        version="0.1.0",
        description="Evaluation-as-a-service for the mental-health safety of LLMs. "
        "Authenticate with `Authorization: Bearer <key>`; errors are RFC 9457 problem+json.",
        lifespan=lifespan,
    )
    install_problem_handlers(app)
    app.state.body_cache = BodyCache()
    app.state.status_documents = SingleFlight(app.state.body_cache, STATUS_MAX_STALE_S)
    # live streams of one evaluation share a read of its progress, twice per poll period at most
    app.state.progress_reads = SharedPolls(settings.events_poll_s / 2)
    app.state.board_cache = BoardCache()
    app.add_middleware(PublicCORSMiddleware, origins=settings.cors_origins)
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        timeout_s=settings.body_timeout_s,
        streamed=frozenset({("POST", grade_batches.UPLOAD_PATH)}),
    )
    app.include_router(targets.router)
    app.include_router(evaluations.router)
    app.include_router(public.router)
    app.include_router(keys.router)
    app.include_router(teams.router)
    app.include_router(grade_batches.router)  # before /v1/grade's routes: a longer path, matched first
    app.include_router(grade_router.router)
    app.include_router(events_router.router)
    app.include_router(webhooks_router.router)
    app.include_router(metrics_router.router)
    app.include_router(problems_router.router)
    app.include_router(compare.router)
    app.include_router(labels.router)
    app.include_router(schedules.router)
    app.include_router(audit.router)
    app.include_router(shares.router)
    app.include_router(pages_router)
    document_problems(app)  # after every router: it documents them all
    return app
