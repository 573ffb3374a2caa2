"""Live progress over a real socket: SSE with progress ids, resumable with Last-Event-ID, ending once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.webhooks.live_server import serving, slow_target


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"events_poll_s": 0.05})


@pytest.fixture
def live(settings: Settings) -> Iterator[tuple[httpx.Client, str]]:
    """An authenticated client of the served app, and the URL of a target that takes 0.15 s a reply."""
    with serving(slow_target(0.15)) as target_url, serving(create_app(settings)) as api_url:
        key = (settings.var_dir / "admin.key").read_text().strip()
        with httpx.Client(base_url=api_url, headers={"Authorization": f"Bearer {key}"}, timeout=30) as api:
            yield api, target_url


def start(api: httpx.Client, target_url: str) -> str:
    """An evaluation of the 9-item suite, one call at a time so progress arrives in steps."""
    target = api.post(
        "/v1/targets",
        json={"name": "slow", "base_url": f"{target_url}/v1", "model": "slow-1", "max_concurrency": 1},
    )
    assert target.status_code == 201, target.text
    started = api.post("/v1/evaluations", json={"target_id": target.json()["id"], "suite": "full"})
    assert started.status_code == 202, started.text
    return started.json()["id"]


def events(
    api: httpx.Client, evaluation_id: str, last_event_id: str | None = None, stop_after: int | None = None
) -> list[dict[str, Any]]:
    """Read the stream until `end` (or stop_after events): [{event, id, data}]."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else {}
    seen: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    with api.stream("GET", f"/v1/evaluations/{evaluation_id}/events", headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith(("event:", "id:", "data:")):
                name, _, value = line.partition(":")
                current[name] = value.strip()
            elif not line and "event" in current:
                seen.append({**current, "data": json.loads(current["data"])})
                current = {}
                if seen[-1]["event"] == "end" or (stop_after and len(seen) >= stop_after):
                    break
    return seen


def test_progress_then_one_end_event_with_the_pass_rate(live: tuple[httpx.Client, str]) -> None:
    api, target_url = live
    stream = events(api, start(api, target_url))
    kinds = [e["event"] for e in stream]
    assert kinds[-1] == "end" and set(kinds[:-1]) == {"progress"} and len(kinds) >= 3
    ids = [int(e["id"]) for e in stream[:-1]]
    assert ids == sorted(ids), "progress ids never go back"
    seen = [(e["id"], e["data"]["status"], e["data"]["stalled"]) for e in stream[:-1]]
    assert len(seen) == len(set(seen)), "an id repeats only when the status changed (queued, then running)"
    end = stream[-1]["data"]
    assert end["status"] == "succeeded" and end["done"] == end["total"] == 9 and int(stream[-1]["id"]) == 9
    assert end["pass_rate"] == 1.0 and end["graded"] == 9 and end["errors_by_class"] == {}
    assert all(e["data"]["done"] == int(e["id"]) for e in stream)
    running = [e["data"] for e in stream if e["data"]["status"] == "running"]
    windows = [d["window"] for d in running if d["window"]]
    assert windows and all(w["maximum"] == 1 and 0 < w["limit"] <= 1 for w in windows)  # max_concurrency 1
    assert end["window"] is None


def test_a_reconnect_gets_the_next_state_not_a_replay(live: tuple[httpx.Client, str]) -> None:
    api, target_url = live
    evaluation_id = start(api, target_url)
    first = events(api, evaluation_id, stop_after=2)
    last_id = first[-1]["id"]
    resumed = events(api, evaluation_id, last_event_id=last_id, stop_after=1)
    assert int(resumed[0]["id"]) > int(last_id) or resumed[0]["event"] == "end"
    rest = events(api, evaluation_id, last_event_id=resumed[0]["id"])
    assert all(int(e["id"]) > int(resumed[0]["id"]) for e in rest if e["event"] == "progress")
    assert rest[-1]["event"] == "end"


def test_a_finished_evaluation_answers_with_its_end_event_at_once(live: tuple[httpx.Client, str]) -> None:
    api, target_url = live
    evaluation_id = start(api, target_url)
    events(api, evaluation_id)
    again = events(api, evaluation_id)
    assert [e["event"] for e in again] == ["end"] and again[0]["data"]["status"] == "succeeded"


def test_unknown_or_unauthenticated_streams_are_refused(live: tuple[httpx.Client, str]) -> None:
    api, _ = live
    missing = api.get("/v1/evaluations/ev_nope/events")
    assert missing.status_code == 404 and missing.json()["field"] == "evaluation_id"
    anonymous = httpx.get(f"{api.base_url}/v1/evaluations/ev_nope/events")
    assert anonymous.status_code == 401


def test_a_run_stopped_by_its_budget_ends_the_stream(live: tuple[httpx.Client, str]) -> None:
    api, target_url = live
    target = api.post("/v1/targets", json={"name": "slow", "base_url": f"{target_url}/v1", "model": "slow-1"})
    body = {"target_id": target.json()["id"], "suite": "full", "max_calls": 2}
    evaluation_id = api.post("/v1/evaluations", json=body).json()["id"]
    seen = events(api, evaluation_id)
    assert seen[-1]["event"] == "end" and seen[-1]["data"]["status"] == "stopped_by_budget"
    assert seen[-1]["data"]["done"] == seen[-1]["data"]["total"] == 2
