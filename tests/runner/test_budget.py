"""Budgets by what a run measures: shards running at once share one cap, and a run its budget stopped settles
even when items it counted as in flight died with their worker."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import Session, col

from app.config import Settings
from app.runner.budget import reported_tokens
from app.runner.reconcile import Reconciler
from app.runner.runtime import Runtime
from app.store.models import Evaluation
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library
from tests.conftest import fresh_postgres_database


class NothingQueued:
    """A queue with no shard of anything queued or held (every worker is gone)."""

    async def shard_states(self, evaluation_id: str, shards: Sequence[int]) -> dict[int, str]:
        return {}

    async def requeue_shard(self, evaluation_id: str, shard: int) -> bool:
        raise AssertionError("a run its budget stopped is never queued again")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def deps(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Runtime]:
    url = None
    if request.param == "postgres":
        url = request.getfixturevalue("pg_url")
    settings = Settings(
        var_dir=tmp_path / "var", database_url=url, target_allowlist="127.0.0.0/8", shard_size=25
    )
    made = make_deps(settings, synthetic_library(4, 25))  # 100 items, 4 shards
    yield made
    made.engine.dispose()


@pytest.fixture
def pg_url() -> object:
    with fresh_postgres_database() as url:
        yield url


def cap(deps: Runtime, evaluation_id: str, **caps: int) -> None:
    with Session(deps.engine) as session:
        session.execute(update(Evaluation).where(col(Evaluation.id) == evaluation_id).values(**caps))
        session.commit()


def row(deps: Runtime, evaluation_id: str) -> Evaluation:
    with Session(deps.engine, expire_on_commit=False) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        return evaluation


async def test_four_shards_at_once_make_exactly_the_calls_the_cap_allows(deps: Runtime) -> None:
    async with running_mock(MockConfig(latency=0.01)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=8)
        cap(deps, evaluation.id, max_calls=30)
        outcomes = await run_evaluation(deps, evaluation, max_jobs=4)
    stored = written(deps, evaluation.id)
    settled = row(deps, evaluation.id)
    assert settled.status == "stopped_by_budget" and settled.budget_stopped_at is not None
    assert stored.rows == stored.distinct_keys == settled.total == 30 == stored.attempts == settled.calls_used
    assert settled.budget_in_flight == 0
    assert all("done" in o or "skipped" in o for o in outcomes), outcomes  # no shard handed items back


async def test_a_stopped_run_whose_in_flight_items_died_settles_without_them(deps: Runtime) -> None:
    async with running_mock(MockConfig(latency=0.0)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        cap(deps, evaluation.id, max_calls=40)
        await run_evaluation(deps, evaluation, max_jobs=1)
    assert written(deps, evaluation.id).rows == 40
    # As if a worker had died holding two items' shares, before anything settled the run.
    cap(deps, evaluation.id, status="running", budget_in_flight=2, total=100)
    looks = await Reconciler(deps, NothingQueued(), grace_s=3600).pass_once()
    assert [look.requeued for look in looks] == [[]]  # within the grace: neither queued nor settled
    assert await Reconciler(deps, NothingQueued(), grace_s=0).pass_once() == []
    settled = row(deps, evaluation.id)
    assert settled.status == "stopped_by_budget" and settled.total == written(deps, evaluation.id).rows


def test_usage_is_read_in_either_providers_words() -> None:
    assert reported_tokens({"prompt_tokens": 10, "completion_tokens": 5}) == 15
    assert reported_tokens({"total_tokens": 40, "prompt_tokens": 10}) == 40
    assert reported_tokens({"input_tokens": 7, "output_tokens": 3}) == 10
    assert reported_tokens({"prompt_tokens": 10}) is None and reported_tokens(None) is None
