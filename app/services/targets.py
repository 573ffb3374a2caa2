"""Registering and changing targets: URL checks and secrets sealed before anything is stored."""

from __future__ import annotations

from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from sqlmodel import Session

from app.config import Settings
from app.errors import Invalid
from app.net.callable_url import require_callable_url
from app.schemas import TargetCreate, TargetPublic, TargetUpdate, TargetVersionPublic
from app.security.secrets import SecretBox
from app.services.probes import Prober, target_endpoint
from app.store import targets as target_store
from app.store.models import Target, TargetVersion


def _checked_fields(
    settings: Settings, secrets: SecretBox, body: TargetCreate, probe: Prober | None = None
) -> dict[str, Any]:
    """The stored columns of a valid configuration: unsafe URLs refused, the endpoint probed (when `probe` is
    given), the API key and headers encrypted."""
    require_callable_url(body.base_url, "base_url", settings)
    if body.kind == "http_json" and (body.request_template is None or body.reply_pointer is None):
        missing = "request_template" if body.request_template is None else "reply_pointer"
        raise Invalid(missing, f"{missing}: required for an http_json target")
    concurrency = body.max_concurrency or settings.target_concurrency
    if concurrency > settings.target_max_concurrency:
        raise Invalid("max_concurrency", f"max_concurrency: at most {settings.target_max_concurrency}")
    if probe is not None:
        probe([target_endpoint(body, settings)])
    return {
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
    }


def register_target(
    *,
    session: Session,
    settings: Settings,
    secrets: SecretBox,
    team_id: str,
    body: TargetCreate,
    probe: Prober | None = None,
) -> Target:
    """Creates a target (its version 1) after refusing unsafe URLs and, with `probe`, an endpoint that does not
    answer; the API key and headers are encrypted."""
    return target_store.create_target(
        session=session, team_id=team_id, fields=_checked_fields(settings, secrets, body, probe)
    )


def _headers(target: Target | TargetVersion, secrets: SecretBox) -> dict[str, str]:
    sealed = (
        target.config.get("headers_secret") if isinstance(target, TargetVersion) else target.headers_secret
    )
    headers = secrets.decrypt_json(sealed) if sealed else {}
    return dict(headers) if isinstance(headers, dict) else {}


def change_target(
    *,
    session: Session,
    settings: Settings,
    secrets: SecretBox,
    target: Target,
    body: TargetUpdate,
    probe: Prober | None = None,
) -> Target:
    """Applies a partial change as the target's next version, checked as a whole exactly like a new target.

    Fields left out keep their current value (secrets included, re-sealed); an invalid result is refused
    with the field named and changes nothing."""
    current: dict[str, Any] = {
        "name": target.name,
        "kind": target.kind,
        "base_url": target.base_url,
        "model": target.model,
        "api_key": secrets.decrypt(target.api_key_secret) if target.api_key_secret else None,
        "headers": _headers(target, secrets),
        "params": target.params,
        "max_concurrency": target.max_concurrency,
        "max_tokens": target.max_tokens,
        "timeout_s": target.timeout_s,
        "requests_per_minute": target.requests_per_minute,
        "tokens_per_minute": target.tokens_per_minute,
        "request_template": target.request_template,
        "reply_pointer": target.reply_pointer,
    }
    changes = body.model_dump(exclude_unset=True)
    if changes.get("headers") is None and "headers" in changes:
        changes["headers"] = {}
    if changes.get("params") is None and "params" in changes:
        changes["params"] = {}
    try:
        merged = TargetCreate.model_validate({**current, **changes})
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None
    fields = _checked_fields(settings, secrets, merged, probe)
    return target_store.update_target(session=session, target=target, fields=fields)


def public_target(target: Target, secrets: SecretBox) -> TargetPublic:
    return TargetPublic(
        id=target.id,
        name=target.name,
        kind=target.kind,
        base_url=target.base_url,
        model=target.model,
        params=target.params,
        max_concurrency=target.max_concurrency,
        has_api_key=target.api_key_secret is not None,
        header_names=sorted(_headers(target, secrets)),
        created_at=target.created_at,
        max_tokens=target.max_tokens,
        timeout_s=target.timeout_s,
        requests_per_minute=target.requests_per_minute,
        tokens_per_minute=target.tokens_per_minute,
        request_template=target.request_template,
        reply_pointer=target.reply_pointer,
        version=target.version,
    )


def public_version(row: TargetVersion, secrets: SecretBox) -> TargetVersionPublic:
    config = row.config
    return TargetVersionPublic(
        version=row.version,
        created_at=row.created_at,
        has_api_key=config.get("api_key_secret") is not None,
        header_names=sorted(_headers(row, secrets)),
        **{
            name: config.get(name)
            for name in TargetVersionPublic.model_fields
            if name not in ("version", "created_at", "has_api_key", "header_names")
        },
    )
