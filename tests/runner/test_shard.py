"""run_shard on SQLite against the loopback mock: once per item, faults recorded, cancel is prompt."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, update

from app.config import Settings
from app.kinds.single_reply import converse
from app.runner.shard import finish_evaluation, run_shard
from app.scoring import report as report_module
from app.store import evaluations as ev_store
from app.store.models import Evaluation
from app.targets.base import TargetReply
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library
from tests.waits import eventually_async


def _settings(tmp_path: Path, **extra: object) -> Settings:
    base: dict[str, object] = {
        "var_dir": tmp_path / "var",
        "target_allowlist": "127.0.0.0/8",
        "shard_size": 40,
        "max_retries": 3,
        "retry_budget_s": 20.0,
        "request_timeout_s": 2.0,
    }
    return Settings(**{**base, **extra})  # type: ignore[arg-type]


async def test_every_item_written_once_and_a_rerun_is_a_no_op(tmp_path: Path) -> None:
    deps = make_deps(_settings(tmp_path), synthetic_library(conditions=4, perturbations=25))
    async with running_mock(MockConfig(latency=0.01)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=8)
        outcomes = await run_evaluation(deps, evaluation, max_jobs=2)
        assert evaluation.shards == 3 and any("evaluation succeeded" in o for o in outcomes)
        again = await run_shard(deps, evaluation.id, 0)
        await deps.targets.aclose()
    result = written(deps, evaluation.id)
    assert result.rows == result.distinct_keys == result.answered == 100 and result.status == "succeeded"
    assert again.startswith("skipped")
    with Session(deps.engine) as session:
        summary = session.get(Evaluation, evaluation.id).summary  # type: ignore[union-attr]
    assert summary  # the report the leaderboard reads was stored


async def test_settling_builds_the_report_while_others_can_still_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full suite's report takes seconds: on SQLite, building it inside the settling transaction held the one
    write lock that long, and API writes failed with 'database is locked' once it outlasted their busy timeout."""
    deps = make_deps(_settings(tmp_path), synthetic_library(conditions=2, perturbations=10))
    real = report_module.compute_report
    took_the_lock: list[bool] = []

    def report_while_another_writes(**kwargs: Any) -> Any:
        other = sqlite3.connect(
            deps.engine.url.database or "", timeout=0
        )  # no waiting: a held lock fails at once
        try:
            other.execute("BEGIN IMMEDIATE")
            other.rollback()
            took_the_lock.append(True)
        except sqlite3.OperationalError:
            took_the_lock.append(False)
        finally:
            other.close()
        return real(**kwargs)

    monkeypatch.setattr(report_module, "compute_report", report_while_another_writes)
    async with running_mock(MockConfig(latency=0.001)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=8)
        await run_evaluation(deps, evaluation, max_jobs=1)
        await deps.targets.aclose()
    assert took_the_lock == [True]
    with Session(deps.engine) as session:
        row = session.get(Evaluation, evaluation.id)
    assert row is not None and row.status == "succeeded" and row.summary and row.summary["n_graded"] == 20


async def test_a_second_finisher_in_the_process_leaves_the_report_to_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shards of one process end together; each that finds the items complete would build the whole report."""
    deps = make_deps(_settings(tmp_path), synthetic_library(conditions=2, perturbations=10))
    async with running_mock(MockConfig(latency=0.001)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=8)
        with Session(deps.engine) as session:  # keep it running: only the finishers below may settle it
            session.exec(update(Evaluation).where(Evaluation.id == evaluation.id).values(total=10_000))
            session.commit()
        await run_evaluation(deps, evaluation, max_jobs=1)
        await deps.targets.aclose()
    with Session(deps.engine) as session:
        session.exec(update(Evaluation).where(Evaluation.id == evaluation.id).values(total=20))
        session.commit()
    real = report_module.compute_report
    builds: list[str | None] = []

    def report_while_another_shard_finishes(**kwargs: Any) -> Any:
        builds.append("built")
        if len(builds) == 1:  # the first finisher is building: a second shard of the process ends now
            second: list[str | None] = []
            other = threading.Thread(target=lambda: second.append(finish_evaluation(deps, evaluation.id)))
            other.start()
            other.join()
            builds.extend(second)
        return real(**kwargs)

    monkeypatch.setattr(report_module, "compute_report", report_while_another_shard_finishes)
    assert await asyncio.to_thread(finish_evaluation, deps, evaluation.id) == "succeeded"
    assert builds == ["built", None]  # the second finisher returned without building or settling
    assert finish_evaluation(deps, evaluation.id) is None  # settled once


async def test_fault_mix_ends_with_every_item_answered_or_with_its_error(tmp_path: Path) -> None:
    deps = make_deps(_settings(tmp_path, request_timeout_s=0.5), synthetic_library(4, 25))
    faults = MockConfig(
        latency=0.01,
        rate_5xx=0.2,
        rate_429=0.1,
        retry_after=0,
        rate_timeout=0.05,
        timeout_seconds=2,
        rate_malformed=0.05,
        seed=3,
    )
    async with running_mock(faults) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=16)
        await run_evaluation(deps, evaluation, max_jobs=3)
    result = written(deps, evaluation.id)
    assert result.rows == result.distinct_keys == 100
    assert result.answered + sum(result.errors.values()) == 100
    assert result.answered >= 90  # 40% faults, 3 retries: almost all get through
    assert result.attempts > 120  # the retries are recorded per item


async def test_cancel_stops_in_flight_calls(tmp_path: Path) -> None:
    deps = make_deps(_settings(tmp_path, request_timeout_s=600.0), synthetic_library(2, 10))
    # Every call is held at the mock: the shard can only end by dropping its in-flight calls.
    async with running_mock(MockConfig(hold_after=0)) as base, httpx.AsyncClient(base_url=base) as mock:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        task = asyncio.create_task(run_shard(deps, evaluation.id, 0))
        held = await eventually_async(
            lambda: mock.get("/stats"), lambda r: r.json().get("held", 0) >= 4, what="4 calls in flight"
        )
        with Session(deps.engine) as session:
            assert ev_store.request_cancel(session=session, evaluation=evaluation)
            session.commit()
        outcome = await asyncio.wait_for(task, 30)  # a hang, not a measure: held calls never answer
        await mock.post("/release")  # the mock's handlers end before it stops
        await deps.targets.aclose()
    assert held.json()["held"] == 4  # no call beyond the concurrency started
    assert outcome == "cancelled"
    assert written(deps, evaluation.id).rows == 0


async def test_a_shard_makes_room_for_the_next_once_its_last_item_is_out(tmp_path: Path) -> None:
    deps = make_deps(
        _settings(tmp_path, request_timeout_s=600.0), synthetic_library(2, 4)
    )  # 8 items, 1 shard
    # Calls after the 4th are held: the shard hands out its last items and waits for their replies.
    async with running_mock(MockConfig(hold_after=4)) as base, httpx.AsyncClient(base_url=base) as mock:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        made_room = asyncio.Event()
        place = await deps.places.take(on_give_back=made_room.set)
        shard = asyncio.create_task(run_shard(deps, evaluation.id, 0, place))
        await asyncio.wait_for(made_room.wait(), 30)  # a hang, not a measure
        assert not shard.done() and (await mock.get("/stats")).json()["held"] == 4
        await mock.post("/release")
        outcome = await shard
        await deps.targets.aclose()
    assert "evaluation succeeded" in outcome
    assert written(deps, evaluation.id).rows == 8


class _Echo:
    """A fake adapter that records what it was sent and answers with the turn number."""

    def __init__(self) -> None:
        self.sent: list[list[dict[str, str]]] = []

    async def complete(self, messages: list[dict[str, str]]) -> TargetReply:
        self.sent.append(messages)
        return TargetReply(text=f"reply {len(self.sent)}", latency_ms=1.0, attempts=1)


async def test_multi_turn_sends_the_targets_own_replies_back() -> None:
    library = synthetic_library(1, 1)
    scenario = library.scenarios["P1-B1-S1"]
    scripted = scenario.perturbations[0].model_copy(
        update={"message": None, "turns": ["one", "two", "three"]}
    )
    from app.benchmark.items import ResolvedItem, expand_suite, resolve

    item = resolve(library, next(expand_suite(library, "bench")))
    item = ResolvedItem(
        item.spec, item.scenario, item.condition, item.user_context, scripted, item.system_prompt
    )
    adapter = _Echo()
    messages, reply = await converse(adapter, item)
    assert [m["content"] for m in adapter.sent[2][1:]] == ["one", "reply 1", "two", "reply 2", "three"]
    assert reply.text == "reply 3" and reply.attempts == 3 and len(messages) == 7


def test_shards_partition_the_suite_in_run_order(tmp_path: Path) -> None:
    from app.benchmark.items import expand_suite, suite_in_run_order
    from app.runner.shard import shard_specs

    deps = make_deps(_settings(tmp_path, shard_size=7), synthetic_library(3, 10))
    evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=2, repeats=2)
    joined = [s for shard in range(evaluation.shards) for s in shard_specs(deps, evaluation, shard)]
    assert joined == suite_in_run_order(deps.library, "bench", 2) and evaluation.shards == 9
    assert [s.index for s in joined] == list(range(len(joined)))  # a shard is an index range (reconcile)
    assert sorted(s.key for s in joined) == sorted(s.key for s in expand_suite(deps.library, "bench", 2))


async def test_a_crash_on_one_item_is_recorded_as_our_error_and_the_shard_goes_on(tmp_path: Path) -> None:
    deps = make_deps(_settings(tmp_path), synthetic_library(conditions=2, perturbations=5))
    del deps.library.conditions["bench-assistant-2"]  # C2 items cannot be resolved now: our bug, not theirs
    async with running_mock(MockConfig(latency=0.01)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        await run_evaluation(deps, evaluation, max_jobs=1)
    result = written(deps, evaluation.id)
    assert result.rows == result.distinct_keys == 10
    assert result.answered == 5 and result.errors == {"our_error": 5} and result.status == "succeeded"
