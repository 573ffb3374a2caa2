"""What `helmbench worker` runs: both job functions under the names the API enqueues, abortable, with room for
many tries; and the job edge that sends a handed-back or failed shard back to the queue rather than failing it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from arq.worker import Retry

from app.config import Settings
from app.queue.arq_queue import GRADE_BATCH_JOB, SHARD_JOB
from app.runner.runtime import Runtime
from app.workers.settings import (
    FAILED_SHARD_DEFER_S,
    SHARD_MAX_TRIES,
    make_worker,
    run_shard_job,
    worker_settings,
)
from app.workers.worker import ShardWorker
from bench.harness import create_evaluation, make_deps, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library
from bench.tcp_proxy import CuttablePostgres
from tests.waits import eventually_async


def scale_out(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"redis_url": "redis://127.0.0.1:6379/11", "queue_name": "helmbench:q", "worker_max_jobs": 3}
    )


def test_a_worker_needs_redis_and_says_which_setting(settings: Settings) -> None:
    with pytest.raises(ValueError, match="HELMBENCH_REDIS_URL"):
        worker_settings(settings)


def test_both_jobs_run_under_the_names_the_queue_uses_and_can_be_aborted(settings: Settings) -> None:
    options = worker_settings(scale_out(settings))
    functions = {f.name: f for f in options["functions"]}
    assert set(functions) == {SHARD_JOB, GRADE_BATCH_JOB}
    assert all(f.max_tries == SHARD_MAX_TRIES for f in functions.values()), "a re-entrant job may run often"
    assert options["allow_abort_jobs"] is True, "cancel reaches a running shard"
    # 3 shards take items; one more waits for the place a shard gives back when its last item is out
    assert (options["queue_name"], options["max_jobs"]) == ("helmbench:q", 4)
    assert options["redis_settings"].database == 11


async def test_the_worker_holds_a_job_for_a_lease(settings: Settings) -> None:
    worker = make_worker(scale_out(settings).model_copy(update={"shard_lease_s": 7.0, "job_timeout_s": 900}))
    assert isinstance(worker, ShardWorker) and worker.in_progress_timeout_s == 7.0


def deps_for(tmp_path: Path, **settings: object) -> Runtime:
    base = {"var_dir": tmp_path / "var", "target_allowlist": "127.0.0.0/8", "shard_size": 5}
    return make_deps(Settings(**(base | settings)), synthetic_library(2, 5))


async def test_a_shard_of_a_stopping_worker_goes_back_to_the_queue_at_once(tmp_path: Path) -> None:
    deps = deps_for(tmp_path)
    evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=2)
    deps.stopping.set()  # SIGTERM came before the shard took an item
    try:
        with pytest.raises(Retry) as retry:
            await run_shard_job({"deps": deps}, evaluation.id, 0)
        assert retry.value.defer_score is None, "another worker may take it now"
        assert (
            await run_shard_job({"deps": deps}, "ev_gone", 0)
            == "skipped: evaluation finished, cancelled or gone"
        )
    finally:
        await deps.targets.aclose()
        deps.engine.dispose()


async def test_a_waiting_shard_job_starts_once_the_running_one_has_handed_out_its_last_item(
    tmp_path: Path,
) -> None:
    deps = deps_for(tmp_path, worker_max_jobs=1, request_timeout_s=600.0)  # one place: arq runs one job more
    # The 5th call on is held: shard 0 hands out its 5th item and waits for its reply.
    async with running_mock(MockConfig(hold_after=4)) as base, httpx.AsyncClient(base_url=base) as mock:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        jobs = [asyncio.create_task(run_shard_job({"deps": deps}, evaluation.id, s)) for s in (0, 1)]
        # 4 held calls: shard 0 has one item left to send, so shard 1 sent the other 3
        await eventually_async(
            lambda: mock.get("/stats"), lambda r: r.json().get("held", 0) == 4, what="shard 1's calls"
        )
        await mock.post("/release")
        outcomes = await asyncio.gather(*jobs)
        await deps.targets.aclose()
    assert any("evaluation succeeded" in outcome for outcome in outcomes)
    assert written(deps, evaluation.id).rows == 10 and not deps.places.full


@pytest.mark.postgres
async def test_a_shard_that_fails_is_queued_again_after_a_pause(tmp_path: Path, postgres_url: str) -> None:
    proxy = CuttablePostgres(postgres_url)
    deps = deps_for(tmp_path, database_url=proxy.url, db_retry_s=0)
    evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=2)
    proxy.cut()  # the database goes away under the worker
    try:
        with pytest.raises(Retry) as retry:
            await run_shard_job({"deps": deps}, evaluation.id, 0)
        assert retry.value.defer_score == FAILED_SHARD_DEFER_S * 1000
    finally:
        await deps.targets.aclose()
        deps.engine.dispose()
        proxy.close()


# Runs in a fresh interpreter: this one has loaded scipy.stats for other tests.
_WORKER_AND_REPORT = """
import sys
import app.cli.main, app.workers.settings
from app.benchmark.items import expand_suite
from app.benchmark.loader import load_library
from app.scoring.facets import StoredItem
from app.scoring.report import build_report
library = load_library()
items = [
    StoredItem(s.key, s.scenario_id, s.condition_id, s.user_context_id, s.perturbation_id, s.repeat,
               ("PASS", "FAIL")[i % 2], 3.0, {"escalates": i % 3 == 0}, None)
    for i, s in enumerate(expand_suite(library, "full"))
]
report = build_report(items, library)
assert report["persona_robustness"]["by_condition"], "McNemar's p-values computed"
print(sorted(m for m in sys.modules if m.startswith("scipy.stats")))
"""


def test_a_worker_starts_and_reports_without_scipy_stats() -> None:
    """scipy.stats costs a process ~60 MB and ~0.6 s to import; a worker (and its report at a run's end) needs
    none of it, so a replacement for a killed worker takes shards sooner and every worker stays smaller. Only
    comparing runs (paired tests) loads it."""
    out = subprocess.run(
        [sys.executable, "-c", _WORKER_AND_REPORT], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"
