"""What every HTTP adapter shares: one attempt = pace, POST, read capped, classify; subclasses shape JSON."""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from functools import cached_property
from typing import Any

import httpx
import orjson

from app.limits.target_gate import TargetGate
from app.net.call_failed import CallFailed
from app.net.client import GuardedAiohttpTransport, ResponseTooLargeError, read_limited
from app.net.ssrf import UnsafeURLError
from app.observability import metrics
from app.security.redact import redact
from app.targets.base import TargetConfig, TargetReply
from app.targets.retry import RetryPolicy, call_with_retries, parse_retry_after


def encode_body(body: Any) -> bytes:
    """The request body as compact UTF-8 JSON. orjson, not json.dumps: a body carries the whole conversation
    and the stdlib's encoder was ~1% of a worker's CPU per call (py-spy). What goes in (messages, the target's
    params and template) came in as JSON, so it goes out the same."""
    return orjson.dumps(body)


def decode_json(raw: bytes) -> Any:
    """A reply's JSON: orjson (a quarter of json.loads's CPU, paid on every call), and what orjson refuses but the
    stdlib takes (NaN, UTF-16, lone surrogates) through json.loads, so such a reply is read as before. One
    difference: orjson reads an integer past 64 bits as a float (only a usage count could hold one)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


class HttpTarget(ABC):
    """Base adapter: subclasses say where and how to call (`endpoint`), and implement `body` and `parse`."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        config: TargetConfig,
        policy: RetryPolicy,
        max_reply_bytes: int,
        gate: TargetGate | None = None,
    ):
        self._client = client
        self._config = config
        self._policy = policy
        self._max_bytes = max_reply_bytes
        self._gate = gate or TargetGate(
            config.max_concurrency, config.requests_per_minute, config.tokens_per_minute
        )
        self._label = config.label
        self._secrets = [config.api_key, *config.headers.values()]
        self._window = metrics.WINDOW.labels(self._label)
        self._in_flight = metrics.IN_FLIGHT.labels(self._label)
        self._latency = metrics.LATENCY.labels(self._label)
        self._ok = metrics.ATTEMPTS.labels(self._label, "ok")
        self._window.set(self._gate.window.limit)
        self.url, auth = self.endpoint(config)
        self.headers = {"content-type": "application/json", **auth, **config.headers}

    @cached_property
    def _parsed_url(self) -> httpx.URL:
        return httpx.URL(self.url)  # parsed once, not on every call

    @cached_property
    def _send_headers(self) -> httpx.Headers:
        """The client's default headers under ours, merged once (httpx merges them again for every request)."""
        return httpx.Headers({**self._client.headers, **self.headers})

    @cached_property
    def _url_text(self) -> str:
        return str(self._parsed_url)  # the URL as httpx normalises it, as a request of it would send it

    @cached_property
    def _header_pairs(self) -> list[tuple[str, str]]:
        return self._send_headers.multi_items()

    @cached_property
    def _timeouts(self) -> dict[str, Any]:
        return {"timeout": httpx.Timeout(self._config.timeout_s).as_dict()}

    @abstractmethod
    def endpoint(self, config: TargetConfig) -> tuple[str, dict[str, str]]:
        """The URL to POST to and the auth headers; the target's own headers are added on top."""

    @abstractmethod
    def body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """The JSON request body for these messages."""

    @abstractmethod
    def parse(self, data: Any) -> tuple[str, dict[str, Any] | None]:
        """Reply text and usage from the decoded JSON; KeyError/IndexError/TypeError if it is not there."""

    async def complete(self, messages: list[dict[str, str]]) -> TargetReply:
        payload = encode_body(self.body(messages))
        estimate = len(payload) // 4 + (self._config.max_tokens or 0)
        reply = await call_with_retries(lambda: self._attempt(payload, estimate), self._policy)
        if reply.attempts > 1:
            metrics.RETRIES.labels(self._label).inc(reply.attempts - 1)
        return reply

    async def attempt_once(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, Any] | None]:
        """One attempt, no retries; raises CallFailed. A probe calls this to see why an endpoint fails."""
        payload = encode_body(self.body(messages))
        return await self._attempt(payload, len(payload) // 4 + (self._config.max_tokens or 0))

    async def _attempt(self, payload: bytes, estimate: int) -> tuple[str, dict[str, Any] | None]:
        gate = self._gate
        async with gate.slot(estimate):
            self._in_flight.inc()
            started = time.monotonic()
            try:
                raw, status, retry_after = await self._post(payload)
            except CallFailed as failure:
                metrics.ATTEMPTS.labels(self._label, failure.error_class).inc()
                raise
            finally:
                self._in_flight.dec()
        try:
            result = self._classify(raw, status, retry_after)
        except CallFailed as failure:
            if failure.error_class == "rate_limited" and gate.window.on_rate_limited():
                self._window.set(gate.window.limit)
            metrics.ATTEMPTS.labels(self._label, failure.error_class).inc()
            raise
        if gate.window.limit < gate.window.maximum:
            gate.window.on_success()
            self._window.set(gate.window.limit)
        self._ok.inc()
        self._latency.observe(time.monotonic() - started)
        return result

    async def _post(self, payload: bytes) -> tuple[bytes, int, str | None]:
        """POST and read the capped reply: body, status, Retry-After. Straight to the client's transport.

        `client.stream` would merge the client's headers, URL and cookies into a new request, run the auth and
        redirect flows and wrap the reply once more on every call: ~0.2 ms of CPU a call (half the adapter's
        cost at C = 256, `python -m bench.client_stack`), none of which applies here (headers merged once
        above, no auth flow, redirects never followed, no cookies kept). The transport comes from the client
        (`_transport_for_url`), so its mounts and respx's mocks still apply; our own transport is asked without
        an httpx Request and Response (`post_capped`).
        """
        timeout = self._config.timeout_s
        try:
            transport = self._client._transport_for_url(self._parsed_url)
            if isinstance(transport, GuardedAiohttpTransport):
                status, retry_after, raw = await transport.post_capped(
                    self._url_text, self._header_pairs, payload, self._timeouts["timeout"], self._max_bytes
                )
                return raw, status, retry_after
            request = httpx.Request(
                "POST",
                self._parsed_url,
                headers=self._send_headers,
                content=payload,
                extensions=self._timeouts,
            )
            response = await transport.handle_async_request(request)
            response.request = request
            raw = await read_limited(response, self._max_bytes)
        except ResponseTooLargeError as exc:
            raise CallFailed(
                "bad_response", f"response larger than {self._max_bytes} bytes", retryable=False
            ) from exc
        except httpx.TimeoutException as exc:
            raise CallFailed("timeout", f"no answer within {timeout:g}s", retryable=True) from exc
        except UnsafeURLError as exc:
            raise CallFailed("target_error", f"refused address: {exc}", retryable=False) from exc
        except httpx.TransportError as exc:
            raise CallFailed(
                "target_error", f"connection failed: {type(exc).__name__}: {exc}"[:300], retryable=True
            ) from exc
        return raw, response.status_code, response.headers.get("retry-after")

    def _classify(
        self, raw: bytes, status: int, retry_after: str | None
    ) -> tuple[str, dict[str, Any] | None]:
        if status == 429:
            raise CallFailed(
                "rate_limited",
                "HTTP 429 Too Many Requests",
                retryable=True,
                retry_after=parse_retry_after(retry_after),
                status=status,
                body=redact(raw.decode("utf-8", "replace"), self._secrets)[:2000],
            )
        if status >= 500:
            raise CallFailed(
                "target_error",
                f"HTTP {status}",
                retryable=True,
                retry_after=parse_retry_after(retry_after),
                status=status,
            )
        if status >= 300:
            # Redact before truncating: a target that echoes our credentials must not leak them into errors.
            body = redact(raw.decode("utf-8", "replace"), self._secrets)[:4000]
            raise CallFailed(
                "target_error", f"HTTP {status}: {body[:200]!r}", retryable=False, status=status, body=body
            )
        try:
            text, usage = self.parse(decode_json(raw))
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise CallFailed(
                "bad_response", f"not the expected JSON body: {type(exc).__name__}", retryable=True
            ) from exc
        if not isinstance(text, str):
            raise CallFailed("bad_response", "the reply is not text", retryable=True)
        return text, usage
