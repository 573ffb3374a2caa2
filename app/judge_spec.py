"""An LLM judge as a request body or a setting names it: the settings (HELMBENCH_JUDGES) and the API's schemas
both take one, so it lives below both and the settings need not import the API's shapes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ModelKind = Literal["openai_chat", "anthropic_messages"]  # what a judge or a simulator may be
PARAMS_DESCRIPTION = (
    "Parameters sent with each call, merged over the service's defaults; null drops a default "
    '(e.g. {"temperature": null, "max_completion_tokens": 2000} for a reasoning model).'
)


def not_reserved(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """The params unless they set what the service sends itself (the model, the messages, streaming)."""
    reserved = {"model", "messages", "stream"} & set(value or {})
    if reserved:
        raise ValueError(f"{', '.join(sorted(reserved))} cannot be set in params")
    return value


class JudgeCreate(BaseModel):
    """An evaluation's own LLM judge (OpenAI-compatible or Anthropic Messages); the key is encrypted at rest."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(min_length=1, max_length=2000, description="e.g. https://api.example.com/v1")
    model: str = Field(min_length=1, max_length=200)
    api_key: str | None = Field(default=None, max_length=4000, description="Write-only; never returned.")
    samples: int = Field(
        default=1, ge=1, le=9, description="Answers per item (k): median score, majority vote."
    )
    kind: ModelKind = "openai_chat"
    params: dict[str, Any] = Field(
        default_factory=dict,
        description=PARAMS_DESCRIPTION + " Defaults: temperature 0 and a seed (OpenAI-compatible).",
    )

    @field_validator("params")
    @classmethod
    def _params_not_reserved(cls, value: dict[str, Any]) -> dict[str, Any]:
        return not_reserved(value) or {}


def distinct_judges(judges: list[JudgeCreate]) -> list[JudgeCreate]:
    """A panel whose judges differ: the same model at the same endpoint twice would only count one voice twice."""
    seen = [(j.base_url.rstrip("/"), j.model) for j in judges]
    if len(set(seen)) != len(seen):
        raise ValueError("each judge of a panel must be a different model or endpoint")
    return judges
