"""Registering targets: URL checks and secrets sealed before anything is stored."""

from __future__ import annotations

from sqlmodel import Session

from app.config import Settings
from app.problems import Problem
from app.schemas import TargetCreate, TargetPublic
from app.security.secrets import SecretBox
from app.services.urls import require_callable_url
from app.store import targets as target_store
from app.store.models import Target


def register_target(
    *, session: Session, settings: Settings, secrets: SecretBox, team_id: str, body: TargetCreate
) -> Target:
    """Creates a target after refusing unsafe URLs; the API key and headers are encrypted at rest."""
    require_callable_url(body.base_url, "base_url", settings)
    if body.kind == "http_json" and (body.request_template is None or body.reply_pointer is None):
        missing = "request_template" if body.request_template is None else "reply_pointer"
        raise Problem(422, "Invalid request", f"{missing}: required for an http_json target", field=missing)
    concurrency = body.max_concurrency or settings.target_concurrency
    if concurrency > settings.target_max_concurrency:
        raise Problem(
            422,
            "Invalid request",
            f"max_concurrency: at most {settings.target_max_concurrency}",
            field="max_concurrency",
        )
    return target_store.create_target(
        session=session,
        team_id=team_id,
        fields={
            "name": body.name,
            "kind": body.kind,
            "base_url": body.base_url.rstrip("/"),
            "model": body.model,
            "api_key_secret": secrets.encrypt(body.api_key) if body.api_key else None,
            "headers_secret": secrets.encrypt_json(body.headers) if body.headers else None,
            "params": body.params,
            "max_concurrency": concurrency,
            "max_tokens": body.max_tokens,
            "timeout_s": body.timeout_s,
            "requests_per_minute": body.requests_per_minute,
            "tokens_per_minute": body.tokens_per_minute,
            "request_template": body.request_template,
            "reply_pointer": body.reply_pointer,
        },
    )


def public_target(target: Target, secrets: SecretBox) -> TargetPublic:
    headers = secrets.decrypt_json(target.headers_secret) if target.headers_secret else {}
    return TargetPublic(
        id=target.id,
        name=target.name,
        kind=target.kind,
        base_url=target.base_url,
        model=target.model,
        params=target.params,
        max_concurrency=target.max_concurrency,
        has_api_key=target.api_key_secret is not None,
        header_names=sorted(headers) if isinstance(headers, dict) else [],
        created_at=target.created_at,
        max_tokens=target.max_tokens,
        timeout_s=target.timeout_s,
        requests_per_minute=target.requests_per_minute,
        tokens_per_minute=target.tokens_per_minute,
        request_template=target.request_template,
        reply_pointer=target.reply_pointer,
    )
