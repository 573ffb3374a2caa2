"""The simulator of a simulated evaluation: its endpoint (the evaluation's own, else the service default), its
key decrypted only in memory, and a guarded session like a target's (SSRF-checked client, limits, retries)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from app.conversations.simulated_item import Simulator
from app.conversations.simulator import SimulatorRules
from app.runner.runtime import Runtime
from app.store.models import Evaluation
from app.targets.base import TargetConfig

TOKENS_PER_WORD = 2  # room for the word cap in tokens, with the stop token and some slack


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
    if base_url:
        secret = evaluation.simulator_api_key_secret
        api_key = deps.secrets.decrypt(secret) if secret else None
    else:
        base_url, model, api_key = (
            settings.simulator_base_url,
            settings.simulator_model,
            settings.simulator_api_key,
        )
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
    config = TargetConfig(
        kind="openai_chat",
        base_url=base_url,
        model=model,
        api_key=api_key,
        max_concurrency=max_concurrency,
        timeout_s=settings.request_timeout_s,
        max_tokens=rules.word_cap * TOKENS_PER_WORD + 16,
        label="simulator",
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
