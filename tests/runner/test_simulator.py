"""An evaluation's simulator: its own endpoint with its key opened only in memory, else the service default."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import respx

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.runner.simulator import TOKENS_PER_WORD, open_simulator, simulator_setup
from app.store.models import Evaluation

OWN = "http://127.0.0.1:9971/v1"
DEFAULT = "http://127.0.0.1:9972/v1"


@pytest.fixture
async def deps(settings: Settings) -> AsyncIterator[Runtime]:
    runtime = build_runtime(
        settings.model_copy(
            update={
                "simulator_base_url": DEFAULT,
                "simulator_model": "toy-sim",
                "simulator_api_key": "sk-default",
            }
        )
    )
    yield runtime
    await runtime.targets.aclose()
    runtime.engine.dispose()


def evaluation(config: dict[str, Any] | None, secret: str | None = None) -> Evaluation:
    return Evaluation(
        team_id="tm",
        target_id="tg",
        target_name="bot",
        model="m",
        suite="simulated",
        benchmark_version="v",
        simulator_config=config,
        simulator_api_key_secret=secret,
    )


def test_an_evaluation_without_simulated_users_has_no_simulator(deps: Runtime) -> None:
    assert simulator_setup(deps, evaluation(None), 4) is None


def test_its_own_endpoint_uses_its_sealed_key_and_its_rules(deps: Runtime) -> None:
    sealed = deps.secrets.encrypt("sk-own")
    config = {"base_url": OWN, "model": "own-sim", "turn_cap": 2, "word_cap": 40}
    _, endpoint, rules = simulator_setup(deps, evaluation(config, sealed), 4)  # type: ignore[misc]
    assert (endpoint.base_url, endpoint.model, endpoint.api_key) == (OWN, "own-sim", "sk-own")
    assert endpoint.max_concurrency == 4 and endpoint.params == {"max_tokens": 40 * TOKENS_PER_WORD + 16}
    assert (rules.turn_cap, rules.word_cap) == (2, 40)
    assert rules.min_turns == 2  # the service minimum (3) never exceeds the evaluation's cap


def test_its_own_kind_and_params_merge_over_the_default_and_null_drops_it(deps: Runtime) -> None:
    own = {"max_tokens": None, "max_completion_tokens": 2000}
    config = {"base_url": OWN, "model": "o-sim", "turn_cap": 4, "word_cap": 40, "kind": "anthropic_messages"}
    _, endpoint, _ = simulator_setup(deps, evaluation({**config, "params": own}), 4)  # type: ignore[misc]
    assert endpoint.kind == "anthropic_messages" and endpoint.params == {"max_completion_tokens": 2000}


def test_without_an_endpoint_the_service_default_plays_and_shares_its_limits(deps: Runtime) -> None:
    config = {"turn_cap": 6, "word_cap": 80}
    first, endpoint, _ = simulator_setup(deps, evaluation(config), 4)  # type: ignore[misc]
    second, _, _ = simulator_setup(deps, evaluation(dict(config)), 8)  # type: ignore[misc]
    assert (endpoint.base_url, endpoint.model, endpoint.api_key) == (DEFAULT, "toy-sim", "sk-default")
    assert first == second  # same endpoint and model: one session, one set of limits
    other, _, _ = simulator_setup(deps, evaluation({**config, "base_url": OWN, "model": "toy-sim"}), 4)  # type: ignore[misc]
    assert other != first


def test_a_missing_default_is_refused_with_a_clear_message(settings: Settings) -> None:
    runtime = build_runtime(settings)
    try:
        with pytest.raises(ValueError, match="service default simulator"):
            simulator_setup(runtime, evaluation({"turn_cap": 6, "word_cap": 80}), 4)
    finally:
        runtime.engine.dispose()


async def test_the_opened_simulator_calls_its_endpoint_with_the_key(
    deps: Runtime, mock_target: respx.MockRouter
) -> None:
    route = mock_target.post(f"{OWN}/chat/completions").mock(
        return_value=httpx.Response(
            200, json={"choices": [{"message": {"role": "assistant", "content": "hey"}}]}
        )
    )
    config = {"base_url": OWN, "model": "own-sim", "turn_cap": 6, "word_cap": 80}
    async with open_simulator(deps, evaluation(config, deps.secrets.encrypt("sk-own")), 2) as simulator:
        assert simulator is not None and simulator.model == "own-sim"
        reply = await simulator.adapter.complete([{"role": "user", "content": "hi"}])
    assert reply.text == "hey"
    assert route.calls[0].request.headers["authorization"] == "Bearer sk-own"
    async with open_simulator(deps, evaluation(None), 2) as none:
        assert none is None
