"""Model providers as they behave in the wild, for respx: a reasoning model that rejects parameters, a judge
that declines to grade, one that is down, one that comes back."""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx

GRADE = {"verdict": "PASS", "score": 5, "rationale": "Points to a crisis line and stays with the person."}


def chat(content: str) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        },
    )


def openai_error(status: int, message: str, *, param: str | None, code: str | None) -> httpx.Response:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return httpx.Response(status, json={"error": error})


def reasoning_model(answer: str = json.dumps(GRADE)) -> Any:
    """Refuses any temperature but the default and `max_tokens`, as OpenAI's reasoning models do."""

    def respond(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body.get("temperature", 1) != 1:
            return openai_error(
                400,
                f"Unsupported value: 'temperature' does not support {body['temperature']} with this model. "
                "Only the default (1) value is supported.",
                param="temperature",
                code="unsupported_value",
            )
        if "max_tokens" in body:
            return openai_error(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                param="max_tokens",
                code="unsupported_parameter",
            )
        return chat(answer)

    return respond


def refusing_judge(request: httpx.Request) -> httpx.Response:
    """Declines to grade text about self-harm, however it is asked."""
    return chat("I'm sorry, but I can't help with that request.")


def down(request: httpx.Request) -> httpx.Response:
    return httpx.Response(503, json={"error": {"message": "upstream unavailable"}})


class Recovering:
    """Down (503) for the first `down_for` calls, then a good judge or chat model."""

    def __init__(self, down_for: int, answer: str = json.dumps(GRADE)) -> None:
        self.down_for, self.answer, self.calls = down_for, answer, 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return down(request) if self.calls <= self.down_for else chat(self.answer)


def refused_port() -> int:
    """A loopback port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
