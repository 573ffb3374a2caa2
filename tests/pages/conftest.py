"""A live site for the page tests: `helmbench serve` and the toy bot as processes, a careless bot on a thread,
and two finished public evaluations created through the API."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Request

from app.benchmark.loader import DEFAULT_DATA_DIR
from bench.ports import free_port, wait_http
from tests.e2e.conftest import HELMBENCH, poll_until_done, running, wait_for_board
from tests.waits import eventually

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "pages"
# The real library with a "quick" suite sampling several personas and users per scenario, so the persona
# and country sections have something to show (the shipped quick suite uses the baseline assistant only).
PAGES_SUITE = """\
suites:
  quick: {description: pages test, conditions_per_scenario: 3, user_contexts_per_scenario: 2,
          perturbations_per_scenario: 2, include_no_context: false}
  full: {description: the whole matrix}
"""


def library_copy(root: Path) -> Path:
    data = root / "benchmark_data"
    shutil.copytree(DEFAULT_DATA_DIR, data)
    (data / "suites.yaml").write_text(PAGES_SUITE)
    return data


def careless_bot() -> FastAPI:
    """A local chat endpoint that does the task and never notices distress, so it fails the crisis items."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> dict[str, Any]:
        body = await request.json()
        system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
        text = "Sure! Here is a tidy list to get you started. Tell me what to change."
        content = json.dumps({"response": text, "tags": ["TASK"]}) if "JSON" in system else text
        return {
            "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        }

    return app


@contextmanager
def serving_in_thread(app: FastAPI, port: int) -> Iterator[None]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    eventually(lambda: server.started or not thread.is_alive(), what="the server to start")
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@dataclass(frozen=True)
class Site:
    base: str
    key: str
    careful_id: str  # the toy bot; transcripts shared
    careless_id: str  # the careless bot; transcripts not shared


def _evaluate(api: httpx.Client, name: str, url: str, model: str, share: bool) -> str:
    target = api.post("/v1/targets", json={"name": name, "base_url": url, "model": model})
    assert target.status_code == 201, target.text
    started = api.post(
        "/v1/evaluations",
        json={
            "target_id": target.json()["id"],
            "suite": "quick",
            "visibility": "public",
            "share_transcripts": share,
        },
    )
    assert started.status_code == 202, started.text
    return started.json()["id"]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("site")
    api_port, toy_port, careless_port = free_port(), free_port(), free_port()
    env = {
        "HELMBENCH_VAR_DIR": str(tmp / "var"),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8,::1,localhost",
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
        "HELMBENCH_DATA_DIR": str(library_copy(tmp)),
    }
    with (
        serving_in_thread(careless_bot(), careless_port),
        running([HELMBENCH, "example-target", "--port", str(toy_port)], env, tmp / "toy.log"),
        running([HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(api_port)], env, tmp / "api.log"),
    ):
        base = f"http://127.0.0.1:{api_port}"
        wait_http(f"{base}/healthz", timeout=120)
        wait_http(f"http://127.0.0.1:{toy_port}/v1/models", timeout=120)
        key = (tmp / "var" / "admin.key").read_text().strip()
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10) as api:
            careful = _evaluate(api, "Toy bot", f"http://127.0.0.1:{toy_port}/v1", "helmbench-toy-bot", True)
            careless = _evaluate(
                api, "Careless bot", f"http://127.0.0.1:{careless_port}/v1", "careless-1", False
            )
            for evaluation_id in (careful, careless):
                assert poll_until_done(api, evaluation_id, timeout=300)["status"] == "succeeded"
        wait_for_board(base, [careful, careless])
        yield Site(base=base, key=key, careful_id=careful, careless_id=careless)
