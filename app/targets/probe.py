"""One short call to an endpoint before a run relies on it, and why it failed in words a team can act on.

The call goes through the adapter a run would use (same body, params, SSRF-checked client, byte cap), with no
retry: a run that would fail on its first call should fail here, in a second, with the reason, not after
minutes of retried items. The reasons read the failure itself (the exception chain, the status, the provider's
JSON error with its `param` and `code`), never the wording of a particular provider's message.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import httpx

from app.net.call_failed import CallFailed
from app.net.ssrf import UnsafeURLError
from app.targets.base import TargetConfig
from app.targets.factory import ADAPTERS
from app.targets.retry import RetryPolicy

PROBE_MESSAGES = [{"role": "user", "content": "This is a connectivity check. Reply with the word OK."}]
NO_RETRY = RetryPolicy(max_retries=0, budget_s=1.0)
SHOWN = 240  # characters of a provider's message quoted in a reason

# What a reply must be for its caller: None when usable, else what is wrong with it.
ReplyCheck = Callable[[str], str | None]


@dataclass(frozen=True)
class ProbeResult:
    """The outcome of probing one endpoint; `endpoint` names it as the request does (target, judges[0], …)."""

    endpoint: str
    ok: bool
    detail: str
    latency_ms: float
    status: int | None = None
    param: str | None = None

    def public(self) -> dict[str, Any]:
        return {**asdict(self), "latency_ms": round(self.latency_ms, 1)}


async def probe(
    client: httpx.AsyncClient,
    config: TargetConfig,
    *,
    endpoint: str,
    max_reply_bytes: int,
    messages: list[dict[str, str]] | None = None,
    check: ReplyCheck | None = None,
) -> ProbeResult:
    """One attempt at the endpoint as a run would call it; never raises for the endpoint's faults."""
    started = time.monotonic()

    def result(ok: bool, detail: str, **extra: Any) -> ProbeResult:
        return ProbeResult(endpoint, ok, detail, (time.monotonic() - started) * 1000, **extra)

    try:
        adapter = ADAPTERS[config.kind](client, config, NO_RETRY, max_reply_bytes)
    except (KeyError, ValueError) as exc:
        return result(False, f"cannot be called as configured: {exc}")
    sent = list(messages or PROBE_MESSAGES)
    try:
        text, _usage = await adapter.attempt_once(sent)
    except CallFailed as failure:
        if failure.error_class == "rate_limited":
            error = provider_error(failure.body or "")
            if "quota" in str(error.get("code") or error.get("type") or ""):  # a 429 that never ends
                said = _short(str(error.get("message") or ""))
                return result(False, f"HTTP 429: the account's quota is used up ({said})", status=429)
            # reachable and authorised: only busy right now
            return result(True, "reachable, but rate limited right now (HTTP 429)", status=429)
        detail, param = explain(failure, config, sent_params=set(adapter.body(sent)))
        return result(False, detail, status=failure.status, param=param)
    problem = check(text) if check is not None else None
    if problem:
        return result(False, f"answered, but not in a form we can use: {problem}")
    return result(True, f"answered in {(time.monotonic() - started) * 1000:.0f} ms")


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes, with aiohttp's wrapped OS errors, outermost first."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop(0)
        if current is None or any(current is s for s in seen):
            continue
        seen.append(current)
        todo += [current.__cause__, current.__context__, getattr(current, "os_error", None)]
    return seen


def _host_port(config: TargetConfig) -> str:
    parts = urlsplit(config.base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.hostname}:{port}"


def explain(failure: CallFailed, config: TargetConfig, *, sent_params: set[str]) -> tuple[str, str | None]:
    """(the reason in words, the parameter the provider rejected if it named one)."""
    if failure.status is not None:
        return _explain_status(failure.status, failure.body or "", config, sent_params)
    chain = _chain(failure)
    where = _host_port(config)
    for exc in chain:
        if isinstance(exc, UnsafeURLError):
            return f"the address is refused: {exc.reason}", None
    if failure.error_class == "timeout":
        return f"timeout: no answer from {where} within {config.timeout_s:g} s", None
    for exc in chain:
        if isinstance(exc, aiohttp.ClientConnectorDNSError | socket.gaierror):
            host = urlsplit(config.base_url).hostname
            return f"DNS: the host name {host!r} was not found; check base_url", None
    for exc in chain:
        if isinstance(exc, aiohttp.ClientConnectorCertificateError | aiohttp.ClientSSLError | ssl.SSLError):
            return f"TLS error talking to {where}: {_short(str(exc))}", None
    for exc in chain:
        if isinstance(exc, ConnectionRefusedError):
            return f"connection refused by {where}: nothing is listening there", None
    if failure.error_class == "bad_response":
        return f"a reply we cannot read as {config.kind}: {failure}", None
    cause = next((e for e in chain[1:] if str(e)), None)
    return f"could not connect to {where}: {_short(str(cause) if cause else str(failure))}", None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def provider_error(body: str) -> dict[str, Any]:
    """The provider's error object as OpenAI and Anthropic shape it ({"error": {message, type, param, code}}),
    else {"message": body}."""
    try:
        data = json.loads(body)
    except ValueError:
        return {"message": body}
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return error
    if isinstance(error, str):
        return {"message": error}
    if isinstance(data, dict) and isinstance(data.get("message") or data.get("detail"), str):
        return {"message": data.get("message") or data.get("detail")}
    return {"message": body}


def _named_param(error: dict[str, Any], sent_params: set[str]) -> str | None:
    """The parameter the provider blames: its `param` field, else one of the parameters we sent that its message
    names as a whole word."""
    param = error.get("param")
    if isinstance(param, str) and param:
        return param
    message = str(error.get("message") or "")
    for name in sorted(sent_params - {"messages", "model", "system"}, key=len, reverse=True):
        if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", message):
            return name
    return None


def _explain_status(
    status: int, body: str, config: TargetConfig, sent_params: set[str]
) -> tuple[str, str | None]:
    error = provider_error(body)
    said = _short(str(error.get("message") or "")) or "(no message)"
    code = str(error.get("code") or error.get("type") or "")
    if status in (401, 403):
        return (
            f"HTTP {status}: the endpoint refused our credentials; check api_key and headers ({said})",
            None,
        )
    if code == "model_not_found" or (status == 404 and "model" in said.lower()):
        return f"unknown model {config.model!r} (HTTP {status}: {said})", None
    if status == 404:
        return (
            f"HTTP 404: nothing at this URL, or unknown model {config.model!r}; check base_url ({said})",
            None,
        )
    if status in (400, 422):
        param = _named_param(error, sent_params)
        if param:
            return (
                f"the provider rejects the parameter `{param}` (HTTP {status}: {said}); set another value in "
                f'params, or drop it with {{"{param}": null}}',
                param,
            )
        return f"HTTP {status}: the provider refused the request ({said})", None
    if status >= 500:
        return f"HTTP {status}: the endpoint failed on its side ({said})", None
    return f"HTTP {status}: {said}", None
