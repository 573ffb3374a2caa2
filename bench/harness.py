"""Set up a database, a target and an evaluation for the runner, and check what it wrote (bench and tests)."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, SQLModel, col, select

from app.benchmark.items import count_suite
from app.benchmark.loader import Library
from app.config import Settings
from app.runner.runtime import Runtime
from app.runner.shard import run_shard
from app.security.secrets import secret_box_for
from app.store import targets as target_store
from app.store.db import make_engine
from app.store.keys import get_or_create_default_team
from app.store.models import Evaluation, EvaluationItem
from bench.synthetic import SUITE


def make_deps(settings: Settings, library: Library) -> Runtime:
    """Engine deps on a fresh schema (tables from the models: half-merged migrations cannot stop a bench)."""
    engine = make_engine(settings)
    SQLModel.metadata.create_all(engine)
    return Runtime(settings=settings, engine=engine, library=library, secrets=secret_box_for(settings))


def create_evaluation(
    deps: Runtime,
    *,
    base_url: str,
    concurrency: int,
    repeats: int = 1,
    kind: str = "openai_chat",
    target_fields: dict[str, Any] | None = None,
    suite: str = SUITE,
    evaluation_fields: dict[str, Any] | None = None,
) -> Evaluation:
    """A target on base_url and a queued evaluation of `suite` (the synthetic one unless told) against it."""
    total = count_suite(deps.library, suite, repeats)
    with Session(deps.engine, expire_on_commit=False) as session:
        team = get_or_create_default_team(session=session)
        target = target_store.create_target(
            session=session,
            team_id=team.id,
            fields={
                "name": "bench",
                "kind": kind,
                "base_url": base_url,
                "model": "mock-model",
                "params": {},
                "max_concurrency": concurrency,
                **(target_fields or {}),
            },
        )
        evaluation = Evaluation(
            team_id=team.id,
            target_id=target.id,
            target_name=target.name,
            model=target.model,
            suite=suite,
            repeats=repeats,
            benchmark_version=deps.library.version,
            total=total,
            shards=max(1, math.ceil(total / deps.settings.shard_size)),
            **(evaluation_fields or {}),
        )
        session.add(evaluation)
        session.commit()
        return evaluation


async def run_evaluation(deps: Runtime, evaluation: Evaluation, max_jobs: int) -> list[str]:
    """Run every shard as one worker process would: `max_jobs` shards at a time, one shared target gate."""
    slots = asyncio.Semaphore(max_jobs)

    async def one(shard: int) -> str:
        async with slots:
            return await run_shard(deps, evaluation.id, shard)

    try:
        return list(await asyncio.gather(*(one(s) for s in range(evaluation.shards))))
    finally:
        await deps.targets.aclose()  # a worker would keep them lingering; a bench or test run ends here


@dataclass
class Written:
    rows: int
    distinct_keys: int
    answered: int
    errors: dict[str, int]
    attempts: int
    status: str


def written(deps: Runtime, evaluation_id: str) -> Written:
    """What the store holds for an evaluation: rows, distinct keys, answered, errors by class, attempts."""
    with Session(deps.engine) as session:
        where = col(EvaluationItem.evaluation_id) == evaluation_id
        rows = session.exec(select(func.count()).select_from(EvaluationItem).where(where)).one()
        keys = session.exec(select(func.count(func.distinct(EvaluationItem.key))).where(where)).one()
        by_class = session.exec(
            select(EvaluationItem.error_class, func.count(), func.sum(EvaluationItem.attempts))
            .where(where)
            .group_by(EvaluationItem.error_class)
        ).all()
        status = session.exec(select(Evaluation.status).where(Evaluation.id == evaluation_id)).one()
    errors = {str(k): int(n) for k, n, _ in by_class if k is not None}
    answered = sum(int(n) for k, n, _ in by_class if k is None)
    attempts = sum(int(a or 0) for _, _, a in by_class)
    return Written(int(rows), int(keys), answered, errors, attempts, status)
