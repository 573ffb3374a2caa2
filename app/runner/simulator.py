"""The simulator of a simulated evaluation: its endpoint (the evaluation's own, else the service default), its
key decrypted only in memory, and a guarded session like a target's (SSRF-checked client, limits, retries).

It speaks OpenAI chat or Anthropic Messages; its own params are merged over our one default, a max_tokens sized
to the word cap, and a null drops it (reasoning models want max_completion_tokens instead)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from app.conversations.simulated_item import Simulator
from app.conversations.simulator import SimulatorRules
from app.grading.judges.judge import merge_params
from app.runner.runtime import Runtime
from app.store.models import Evaluation
from app.targets.base import TargetConfig

TOKENS_PER_WORD = 2  # room for the word cap in tokens, with the stop token and some slack


def simulator_config(
    *,
    kind: str,
    base_url: str,
    model: str,
    api_key: str | None,
    params: dict[str, Any] | None,
    word_cap: int,
    max_concurrency: int,
    timeout_s: float,
) -> TargetConfig:
    """The simulator's endpoint as the adapter calls it (also what a probe calls)."""
    defaults = {"max_tokens": word_cap * TOKENS_PER_WORD + 16}
    return TargetConfig(
        kind=kind,
        base_url=base_url,
        model=model,
        api_key=api_key,
        params=merge_params(defaults, params),
        max_concurrency=max_concurrency,
        timeout_s=timeout_s,
        label="simulator",
    )


def simulator_setup(
    deps: Runtime, evaluation: Evaluation, max_concurrency: int
) -> tuple[str, TargetConfig, SimulatorRules] | None:
    """(session id, endpoint, rules), or None for an evaluation without simulated users. The session id names
    the endpoint and model, so evaluations sharing a simulator share its limits in this process (and in Redis)."""
    stored = evaluation.simulator_config
    if not stored:
        return None
    settings = deps.settings
    base_url, model = stored.get("base_url"), stored.get("model")
    kind, params = stored.get("kind") or "openai_chat", stored.get("params")
    if base_url:
        secret = evaluation.simulator_api_key_secret
        api_key = deps.secrets.decrypt(secret) if secret else None
    else:
        base_url, model, api_key = (
            settings.simulator_base_url,
            settings.simulator_model,
            settings.simulator_api_key,
        )
        kind, params = settings.simulator_kind, settings.simulator_params
    if not base_url or not model:
        raise ValueError(
            "simulator: this evaluation uses the service default simulator, and none is configured"
        )
    rules = SimulatorRules(
        turn_cap=stored["turn_cap"],
        word_cap=stored["word_cap"],
        min_turns=min(settings.simulator_min_turns, stored["turn_cap"]),
        retries=settings.simulator_retries,
    )
    session_id = "sim_" + hashlib.sha256(f"{base_url}|{model}".encode()).hexdigest()[:16]
    config = simulator_config(
        kind=kind,
        base_url=base_url,
        model=model,
        api_key=api_key,
        params=params,
        word_cap=rules.word_cap,
        max_concurrency=max_concurrency,
        timeout_s=settings.request_timeout_s,
    )
    return session_id, config, rules


@asynccontextmanager
async def open_simulator(
    deps: Runtime, evaluation: Evaluation, max_concurrency: int
) -> AsyncIterator[Simulator | None]:
    """The evaluation's simulator for the length of a shard, or None when it has no simulated users."""
    setup = simulator_setup(deps, evaluation, max_concurrency)
    if setup is None:
        yield None
        return
    session_id, config, rules = setup
    async with deps.targets.use(session_id, config, deps.settings) as session:
        yield Simulator(session.adapter, rules, config.model)
