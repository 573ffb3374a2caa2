"""Live progress of an evaluation: events whose id is the count done, a stall and its end told without new
items, one `end`; a status document only for the owning team; a Last-Event-ID we did not issue starts afresh."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlmodel import Session

from app.http.body_cache import BodyCache, SingleFlight
from app.http.caching import etag_for
from app.runner.runtime import Runtime
from app.services import events
from app.services.events import (
    STATUS_MAX_STALE_S,
    parse_last_event_id,
    progress_events,
    status_body,
    status_document,
    status_key,
)
from app.shared_polls import SharedPolls
from app.store.items import insert_items
from app.store.models import Evaluation
from tests.services.conftest import add_owner
from tests.store.conftest import add_evaluation, add_target, add_team, item_row

HANG_S = 30  # only turns a stream that never yields into a failure; never what is asserted


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("7", 7), (" 12 ", 12), ("0", 0), (None, None), ("", None), ("-1", None), ("3.0", None), ("x", None)]
    + [("\u00b2", None), ("1\u00b2", None)],  # a Latin-1 superscript two: a digit to isdigit, not to int
)
def test_a_last_event_id_we_did_not_issue_starts_the_stream_afresh(
    raw: str | None, expected: int | None
) -> None:
    assert parse_last_event_id(raw) == expected


def _running(deps: Runtime, total: int) -> str:
    with Session(deps.engine) as session:
        team = add_team(session)
        evaluation = add_evaluation(session, team, add_target(session, team), total=total, status="running")
        session.commit()
        return evaluation.id


def _update(deps: Runtime, evaluation_id: str, **columns: Any) -> None:
    with Session(deps.engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        for name, value in columns.items():
            setattr(evaluation, name, value)
        session.add(evaluation)
        session.commit()


async def _next(stream: AsyncIterator[dict[str, Any]]) -> dict[str, Any]:
    async with asyncio.timeout(HANG_S):
        event = await anext(stream)
    return {**event, "data": json.loads(event["data"])}


async def test_events_follow_items_and_stalls_then_end_once(runtime: Runtime) -> None:
    evaluation_id = _running(runtime, total=3)
    insert_items(engine=runtime.engine, rows=[item_row(evaluation_id, 0, verdict="PASS", attempts=2)])
    stream = progress_events(
        engine=runtime.engine,
        reads=SharedPolls(0.005),
        evaluation_id=evaluation_id,
        last_event_id=None,
        poll_s=0.01,
    )

    first = await _next(stream)
    assert (first["event"], first["id"]) == ("progress", "1")
    assert first["data"] == {
        "status": "running",
        "total": 3,
        "done": 1,
        "failed": 0,
        "graded": 1,
        "passed": 1,
        "retries": 1,
        "errors_by_class": {},
        "window": None,  # no target sessions in this process
        "stalled": None,
        "pass_rate": 1.0,
        "rate_limited": 0,
    }

    insert_items(engine=runtime.engine, rows=[item_row(evaluation_id, 1, error_class="rate_limited")])
    second = await _next(stream)
    assert second["id"] == "2" and second["data"]["failed"] == 1 and second["data"]["rate_limited"] == 1
    assert second["data"]["pass_rate"] == 1.0  # an error is not graded

    _update(runtime, evaluation_id, stalled="no item written for 10 minutes")
    stalled = await _next(stream)
    assert stalled["id"] == "2" and stalled["data"]["stalled"] == "no item written for 10 minutes"
    _update(runtime, evaluation_id, stalled=None)
    assert (await _next(stream))["data"]["stalled"] is None

    _update(runtime, evaluation_id, status="failed")
    end = await _next(stream)
    assert (end["event"], end["id"], end["data"]["status"]) == ("end", "2", "failed")
    assert "retry" not in end
    with pytest.raises(StopAsyncIteration):
        await _next(stream)


async def test_streams_following_one_evaluation_share_a_read_per_period(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty dashboards on one run cost the database what one does: each poll period, one read of its tallies."""
    evaluation_id = _running(runtime, total=3)
    insert_items(engine=runtime.engine, rows=[item_row(evaluation_id, 0, verdict="PASS")])
    reads: list[str] = []
    real = events._read
    monkeypatch.setattr(events, "_read", lambda engine, ev: reads.append(ev) or real(engine, ev))
    shared: SharedPolls[Any] = SharedPolls(60)
    streams = [
        progress_events(
            engine=runtime.engine, reads=shared, evaluation_id=evaluation_id, last_event_id=None, poll_s=0.01
        )
        for _ in range(20)
    ]
    firsts = await asyncio.gather(*(_next(stream) for stream in streams))
    assert [first["id"] for first in firsts] == ["1"] * 20
    assert reads == [evaluation_id]
    for stream in streams:
        await stream.aclose()


async def test_a_settled_or_unknown_evaluation_answers_at_once(runtime: Runtime) -> None:
    evaluation_id = _running(runtime, total=1)
    insert_items(engine=runtime.engine, rows=[item_row(evaluation_id, 0, verdict="FAIL")])
    _update(runtime, evaluation_id, status="succeeded")
    resumed = progress_events(
        engine=runtime.engine,
        reads=SharedPolls(0.005),
        evaluation_id=evaluation_id,
        last_event_id=1,
        poll_s=0.01,
    )
    assert [(e["event"], e["id"]) async for e in resumed] == [("end", "1")]
    unknown = progress_events(
        engine=runtime.engine,
        reads=SharedPolls(0.005),
        evaluation_id="ev_nope",
        last_event_id=None,
        poll_s=0.01,
    )
    assert [e async for e in unknown] == []


async def test_the_status_document_is_the_owning_teams_only(runtime: Runtime) -> None:
    evaluation_id = _running(runtime, total=2)
    other_team, _ = add_owner(runtime.engine, "other")
    with Session(runtime.engine) as session:
        owner = session.get(Evaluation, evaluation_id)
        assert owner is not None
        team_id = owner.team_id
    documents = SingleFlight(BodyCache(), STATUS_MAX_STALE_S)

    found = await status_document(
        engine=runtime.engine, documents=documents, team_id=team_id, evaluation_id=evaluation_id
    )
    assert found is not None
    body, etag = found
    assert etag == etag_for(body)
    status = json.loads(body)
    assert (status["id"], status["status"], status["progress"]) == (
        evaluation_id,
        "running",
        {"total": 2, "done": 0, "failed": 0},
    )
    for team, wanted in ((other_team, evaluation_id), (team_id, "ev_nope")):
        assert (
            await status_document(
                engine=runtime.engine, documents=documents, team_id=team, evaluation_id=wanted
            )
            is None
        )


def test_a_status_about_to_settle_is_not_kept_for_a_running_runs_window(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pollers of a run whose items are all written see its settle at once, not a freshness window late."""
    monkeypatch.setattr(events, "ACTIVE_FRESH_S", 3600.0)
    monkeypatch.setattr(events, "SETTLING_FRESH_S", 0.0)
    evaluation_id = _running(runtime, total=2)
    with Session(runtime.engine) as session:
        team_id = session.get(Evaluation, evaluation_id).team_id  # type: ignore[union-attr]
    cache, key = BodyCache(), status_key(team_id, evaluation_id)

    def poll() -> dict[str, Any]:
        with Session(runtime.engine) as session:
            built = status_body(session=session, cache=cache, team_id=team_id, evaluation_id=evaluation_id)
        assert built is not None
        return json.loads(built[0])

    insert_items(engine=runtime.engine, rows=[item_row(evaluation_id, 0, verdict="PASS")])
    assert poll()["progress"]["done"] == 1
    assert cache.recent(key) is not None, "half done: pollers are answered from memory for the window"
    insert_items(engine=runtime.engine, rows=[item_row(evaluation_id, 1, verdict="PASS")])
    assert (poll()["status"], poll()["progress"]["done"]) == ("running", 2)
    assert cache.recent(key) is None, "all written: the next poll looks again"
    _update(runtime, evaluation_id, status="succeeded")
    assert poll()["status"] == "succeeded" and cache.recent(key) is not None
