"""The breaker: a dead target ends the run `failed` in a bounded number of calls; one that recovers goes on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import respx
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import Settings
from app.main import create_app
from app.runner.breaker import ENDPOINT_FAILURES, Breaker
from app.runner.shard import _simulator_outcome
from app.store.models import Evaluation
from app.targets.base import TargetReply
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.synthetic import synthetic_library
from tests.providers import chat, refused_port
from tests.real_library import real_library_settings
from tests.routers.conftest import TARGET_URL as BOT_URL
from tests.routers.conftest import careful_bot, make_target
from tests.waits import settled

TARGET = "http://127.0.0.1:9913/v1"


def _settings(tmp_path: Path, **extra: object) -> Settings:
    base: dict[str, object] = {
        "var_dir": tmp_path / "var",
        "target_allowlist": "127.0.0.0/8",
        "shard_size": 1000,
        "max_retries": 1,
        "retry_budget_s": 5.0,
        "request_timeout_s": 2.0,
        "breaker_after": 3,
        "breaker_cooldown_s": 0.2,
    }
    return Settings(**{**base, **extra})  # type: ignore[arg-type]


async def test_breaker_opens_after_n_then_trips_when_its_trial_fails() -> None:
    breaker = Breaker("target", after=2, cooldown_s=0.05)
    assert await breaker.admit()
    breaker.record("target_error", "HTTP 503")
    breaker.record("timeout", "no answer")
    waiting = asyncio.create_task(breaker.admit())
    await asyncio.sleep(0.01)
    assert not waiting.done()  # open: nobody starts an item during the cool-down
    assert await asyncio.wait_for(waiting, 1)  # half-open: one trial item
    second = asyncio.create_task(breaker.admit())
    await asyncio.sleep(0.01)
    assert not second.done()  # only the one
    breaker.record("target_error", "connection failed")
    assert await asyncio.wait_for(second, 1) is False and breaker.tripped
    assert "3 items in a row" in breaker.reason and "connection failed" in breaker.reason


async def test_breaker_closes_when_its_trial_succeeds_and_ignores_our_own_errors() -> None:
    breaker = Breaker("target", after=2, cooldown_s=0.01)
    breaker.record("target_error", "HTTP 503")
    breaker.record("our_error", "a bug of ours")  # not the endpoint's fault: does not count
    breaker.record("simulator_error", "role inversion")
    assert await asyncio.wait_for(breaker.admit(), 1)
    breaker.record("target_error", "HTTP 503")
    assert await asyncio.wait_for(breaker.admit(), 1)  # the trial
    breaker.record(None, None)
    assert await asyncio.wait_for(breaker.admit(), 1) and not breaker.tripped


async def test_a_refused_port_fails_the_run_in_a_bounded_number_of_calls(tmp_path: Path) -> None:
    deps = make_deps(_settings(tmp_path), synthetic_library(conditions=4, perturbations=25))
    evaluation = create_evaluation(deps, base_url=f"http://127.0.0.1:{refused_port()}/v1", concurrency=2)
    outcomes = await run_evaluation(deps, evaluation, max_jobs=1)
    result = written(deps, evaluation.id)
    assert result.status == "failed" and outcomes[0].startswith("failed: stopped early")
    # 3 in a row, at most one more in flight at concurrency 2, one trial: never the 100 items
    assert 4 <= result.rows <= 6 and result.attempts <= 12
    with Session(deps.engine) as session:
        error = session.get(Evaluation, evaluation.id).error  # type: ignore[union-attr]
    assert error is not None and "the target failed every attempt" in error and "connection failed" in error


async def test_a_target_that_recovers_within_the_half_open_trial_keeps_going(tmp_path: Path) -> None:
    deps = make_deps(_settings(tmp_path), synthetic_library(conditions=2, perturbations=10))
    evaluation = create_evaluation(deps, base_url=TARGET, concurrency=1)
    calls = 0

    def flaky(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls <= 6:  # down for three items of two attempts each, up from the trial on
            return httpx.Response(503)
        json.loads(request.content)
        return chat(json.dumps({"response": "Sure.", "tags": ["TASK"]}))

    with respx.mock(using="httpx", assert_all_called=False) as router:
        router.post(f"{TARGET}/chat/completions").mock(side_effect=flaky)
        await run_evaluation(deps, evaluation, max_jobs=1)
    result = written(deps, evaluation.id)
    assert result.status == "succeeded" and result.rows == 20
    assert result.errors == {"target_error": 3} and result.answered == 17


async def test_with_several_shards_at_once_the_first_trip_fails_the_evaluation_and_the_rest_stop(
    tmp_path: Path,
) -> None:
    deps = make_deps(_settings(tmp_path, shard_size=10), synthetic_library(conditions=4, perturbations=25))
    evaluation = create_evaluation(deps, base_url=f"http://127.0.0.1:{refused_port()}/v1", concurrency=1)
    outcomes = await run_evaluation(deps, evaluation, max_jobs=2)
    result = written(deps, evaluation.id)
    assert result.status == "failed" and evaluation.shards == 10
    assert result.rows <= 2 * 5  # the two shards out at once, 3 in a row + a trial each at most
    assert sum(o.startswith("skipped") for o in outcomes) >= 8  # the rest never called the target


def test_a_simulated_item_counts_against_the_simulator_only_when_it_stopped_answering() -> None:
    down = TargetReply(None, 0, 1, error_class="simulator_error", error="simulator_unavailable: timeout: …")
    slip = TargetReply(None, 0, 1, error_class="simulator_error", error="role_inversion: answered as the bot")
    target_down = TargetReply(None, 0, 1, error_class="target_error", error="HTTP 503")
    assert _simulator_outcome(down)[0] == "target_error"
    assert _simulator_outcome(slip) == (None, None)  # it answered: it is up
    assert _simulator_outcome(target_down)[0] not in ENDPOINT_FAILURES  # nothing learnt about the simulator


def test_a_simulator_that_is_down_fails_a_simulated_run_early(
    tmp_path: Path, mock_target: respx.MockRouter
) -> None:
    port = refused_port()
    mock_target.route(host="127.0.0.1", port=port).pass_through()
    mock_target.post(f"{BOT_URL}/chat/completions").mock(side_effect=careful_bot)
    settings = real_library_settings(tmp_path / "var", breaker_after=2, breaker_cooldown_s=0.1)
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        simulator = {"base_url": f"http://127.0.0.1:{port}/v1", "model": "sim"}
        body = {
            "target_id": make_target(client, max_concurrency=1),
            "suite": "simulated",
            "simulator": simulator,
        }
        evaluation_id = client.post("/v1/evaluations", json=body).json()["id"]
        evaluation = settled(client, evaluation_id)
    assert evaluation["status"] == "failed" and evaluation["progress"]["done"] <= 3  # of 120 conversations
    assert evaluation["error"].startswith("stopped early: the simulator failed every attempt")
    assert "simulator_unavailable" in evaluation["error"]
