"""The OpenAI-compatible surface the toy servers share (example target, example simulator): a model list and a
chat completion whose content a rule-based function gives, so only the rules differ between them."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request


def toy_chat_app(title: str, model: str, answer: Callable[[list[dict[str, Any]]], str]) -> FastAPI:
    """An app that answers `POST /v1/chat/completions` with `answer(messages)` and lists `model`."""
    app = FastAPI(title=title)

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "helmbench-toy"}]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> dict[str, Any]:
        body = await request.json()
        content = answer(body.get("messages") or [])
        return {
            "id": f"toy-{time.time_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", model),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": len(content.split()), "total_tokens": 0},
        }

    return app
