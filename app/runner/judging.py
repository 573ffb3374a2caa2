"""The grader a run uses: the evaluation's panel (else the service default) with each judge's provider.

Each judge keeps its API (`kind`) and its own `params` as the evaluation stored them or the settings set them,
and the deployment's breaker settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.benchmark.countries import CountryResources
from app.config import Settings
from app.grading.grader import Grader, judge_configs_for_evaluation, judge_configs_from_settings
from app.grading.judges.judge import JudgeConfig, with_providers
from app.net.ssrf import Allowlist
from app.security.secrets import SecretBox
from app.targets.retry import RetryPolicy


def default_providers(settings: Settings) -> list[dict[str, Any]]:
    """kind and params of the default panel, in its order."""
    if settings.judges:
        return [{"kind": j.kind, "params": j.params} for j in settings.judges]
    return [{"kind": settings.judge_kind, "params": settings.judge_params}]


def _providers(settings: Settings, evaluation: Any) -> list[dict[str, Any]]:
    stored = getattr(evaluation, "judge_config", None)
    if not stored:
        return default_providers(settings)
    return list(stored.get("judges") or [stored])


def _breaker(settings: Settings) -> dict[str, Any]:
    return {"breaker_after": settings.breaker_after, "breaker_cooldown_s": settings.breaker_cooldown_s}


def default_judges(settings: Settings) -> list[JudgeConfig]:
    """The service-wide default panel with its providers."""
    return with_providers(
        judge_configs_from_settings(settings), default_providers(settings), **_breaker(settings)
    )


def evaluation_judges(settings: Settings, secrets: SecretBox, evaluation: Any) -> list[JudgeConfig]:
    """The evaluation's panel (else the default) with its providers."""
    configs = judge_configs_for_evaluation(settings, secrets, evaluation)
    return with_providers(configs, _providers(settings, evaluation), **_breaker(settings))


def grader_for(
    settings: Settings, secrets: SecretBox, countries: Mapping[str, CountryResources], evaluation: Any
) -> Grader:
    """What `Grader.for_evaluation` builds, with each judge's provider and the breaker settings."""
    return Grader.with_judges(
        countries,
        evaluation_judges(settings, secrets, evaluation),
        max_reply_bytes=settings.max_reply_bytes,
        policy=RetryPolicy(max_retries=settings.max_retries, budget_s=settings.retry_budget_s),
        allowlist=Allowlist.parse(settings.target_allowlist),
    )
