"""Probing endpoints before a request is accepted: the target, each judge and the simulator, one short call each.

The calls go through the client a run uses (SSRF checks at connect time, the reply byte cap), at once, each
within probe_timeout_s; a failure refuses the request with a 422 that names the endpoint and says why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import anyio.from_thread

from app.benchmark.loader import Library
from app.config import Settings
from app.errors import Invalid
from app.grading.judges.judge import JudgeConfig, probe_check, probe_messages
from app.kinds.registry import kind_named
from app.net.client import make_client
from app.net.ssrf import Allowlist
from app.runner.judging import default_judges
from app.runner.shard import stored_target_config
from app.runner.simulator import simulator_config
from app.schemas import EvaluationCreate, TargetCreate
from app.security.secrets import SecretBox
from app.store.models import Target
from app.targets.base import TargetConfig
from app.targets.probe import ProbeResult, ReplyCheck, probe


@dataclass(frozen=True)
class Endpoint:
    """One endpoint to probe, named as the request names it."""

    name: str
    config: TargetConfig
    messages: list[dict[str, str]] | None = None
    check: ReplyCheck | None = None


def target_endpoint(body: TargetCreate, settings: Settings) -> Endpoint:
    """The target as a new or changed registration describes it."""
    config = TargetConfig(
        kind=body.kind,
        base_url=body.base_url.rstrip("/"),
        model=body.model,
        api_key=body.api_key,
        headers=dict(body.headers),
        params=dict(body.params),
        timeout_s=body.timeout_s or settings.request_timeout_s,
        max_tokens=body.max_tokens,
        request_template=body.request_template,
        reply_pointer=body.reply_pointer,
    )
    return Endpoint("target", config)


def stored_target_endpoint(target: Target, secrets: SecretBox, settings: Settings) -> Endpoint:
    """The target as stored now (its current version)."""
    return Endpoint("target", stored_target_config(target, secrets, settings))


def _judge_endpoint(name: str, config: JudgeConfig) -> Endpoint:
    return Endpoint(name, config.call_config(0), probe_messages(), probe_check)


def evaluation_endpoints(settings: Settings, library: Library, body: EvaluationCreate) -> list[Endpoint]:
    """The judges and the simulator an evaluation would call (its own, else the service's defaults)."""
    endpoints: list[Endpoint] = []
    if body.panel():
        for i, judge in enumerate(body.panel()):
            name = "judge" if body.judge is not None else f"judges[{i}]"
            config = JudgeConfig(
                base_url=judge.base_url.rstrip("/"),
                model=judge.model,
                api_key=judge.api_key,
                seed=settings.judge_seed,
                timeout_s=settings.request_timeout_s,
                kind=judge.kind,
                params=judge.params,
            )
            endpoints.append(_judge_endpoint(name, config))
    else:
        endpoints += [_judge_endpoint(f"judges[{i}]", c) for i, c in enumerate(default_judges(settings))]
    suite = library.suites.get(body.suite)
    if suite is None or not kind_named(suite.kind).uses_simulator:
        return endpoints
    sim = body.simulator
    word_cap = (sim.word_cap if sim else None) or settings.simulator_word_cap
    if sim is not None:
        where: dict[str, Any] = {
            "kind": sim.kind,
            "base_url": sim.base_url.rstrip("/"),
            "model": sim.model,
            "api_key": sim.api_key,
            "params": sim.params,
        }
    elif settings.simulator_base_url and settings.simulator_model:
        where = {
            "kind": settings.simulator_kind,
            "base_url": settings.simulator_base_url,
            "model": settings.simulator_model,
            "api_key": settings.simulator_api_key,
            "params": settings.simulator_params,
        }
    else:
        return endpoints
    config = simulator_config(
        **where, word_cap=word_cap, max_concurrency=1, timeout_s=settings.request_timeout_s
    )
    return [*endpoints, Endpoint("simulator", config)]


async def probe_endpoints(settings: Settings, endpoints: list[Endpoint]) -> list[ProbeResult]:
    """Probe every endpoint at once through one guarded client; never raises for an endpoint's fault."""
    if not endpoints:
        return []
    limit = settings.probe_timeout_s
    async with make_client(
        max_connections=max(2, len(endpoints)),
        timeout=limit,
        allowlist=Allowlist.parse(settings.target_allowlist),
        max_response_bytes=settings.max_reply_bytes,
    ) as client:
        return list(
            await asyncio.gather(
                *(
                    probe(
                        client,
                        replace(e.config, timeout_s=min(e.config.timeout_s, limit)),
                        endpoint=e.name,
                        max_reply_bytes=settings.max_reply_bytes,
                        messages=e.messages,
                        check=e.check,
                    )
                    for e in endpoints
                )
            )
        )


def require_reachable(results: list[ProbeResult]) -> None:
    """Refuse the request (422) when a probe failed: every failure named, the first one as the field."""
    failed = [r for r in results if not r.ok]
    if not failed:
        return
    detail = "; ".join(f"{r.endpoint}: {r.detail}" for r in failed)
    raise Invalid(
        failed[0].endpoint,
        f'{detail}. Send "probe": false to skip this check.',
        probe=[r.public() for r in results],
    )


Prober = Callable[[list[Endpoint]], None]


def prober(settings: Settings, wanted: bool) -> Prober | None:
    """What a service calls, from a worker thread, to probe endpoints and refuse the request if one fails: the
    calls run on the event loop, which keeps serving meanwhile. None when probing is off or not wanted."""
    if not (settings.probe_endpoints and wanted):
        return None

    def run(endpoints: list[Endpoint]) -> None:
        require_reachable(anyio.from_thread.run(probe_endpoints, settings, endpoints))

    return run
