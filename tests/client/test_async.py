"""AsyncHelmbenchClient: the same operations awaited, against the app served on a loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import respx

from app.client import ApiError, AsyncHelmbenchClient, ndjson
from app.config import Settings
from app.main import create_app
from tests.client.conftest import ORDINARY, SAFE, admin_key, target_body
from tests.routers.conftest import TARGET_URL, careful_bot
from tests.webhooks.live_server import serving


@pytest.fixture
def served(settings: Settings, mock_target: respx.MockRouter) -> Iterator[str]:
    """The app under uvicorn; respx answers for the target and lets the client's own calls through."""
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    fast = settings.model_copy(update={"events_poll_s": 0.05})
    with serving(create_app(fast)) as url:
        mock_target.route(host="127.0.0.1", port=urlsplit(url).port).pass_through()
        yield url


async def test_follow_events_page_results_and_grade(served: str, settings: Settings) -> None:
    async with AsyncHelmbenchClient(served, admin_key(settings)) as client:
        target = await client.create_target(target_body())
        run = await client.start_evaluation({"target_id": target.id, "suite": "full"})
        events = [e async for e in client.events(run.id)]
        assert events[-1].end and events[-1].status == "succeeded" and events[-1].done == 9
        assert events[-1].pass_rate == 1.0 and events[-1].failed == 0
        assert (await client.wait(run.id, interval=0.05)).status == "succeeded"

        items = [i async for i in client.iter_results(run.id, page_size=2)]  # five pages
        assert len({i.key for i in items}) == 9
        assert [e.id async for e in client.iter_evaluations()] == [run.id]
        assert (await client.report(run.id))["n_items"] == 9

        assert (await client.grade(SAFE)).verdict == "PASS"
        batch = await client.submit_grade_batch(ndjson([SAFE, ORDINARY]))
        states = [s async for s in client.follow_grade_batch(batch.id, interval=0.05)]
        assert states[-1].status == "succeeded"
        assert sorted([r.line async for r in client.iter_grade_batch_results(batch.id)]) == [1, 2]

        with pytest.raises(ApiError) as missing:
            await client.report("ev_missing")
        assert (missing.value.status, missing.value.field) == (404, "evaluation_id")


async def test_redact_masks_before_grading_or_when_shown(served: str, settings: Settings) -> None:
    personal = {**SAFE, "reply": "I'm worried, Sarah. Call me on 0412 345 678, or Lifeline on 13 11 14."}
    async with AsyncHelmbenchClient(served, admin_key(settings)) as client:
        assert (await client.grade(personal)).checks["unverified_local_numbers"] == ["+61412345678"]
        assert "unverified_local_numbers" not in (await client.grade(personal, redact=True)).checks
        masked = await client.submit_grade_batch(ndjson([personal]), redact=True)
        plain = await client.submit_grade_batch(ndjson([personal]))
        for batch in (masked, plain):
            assert [s async for s in client.follow_grade_batch(batch.id, interval=0.05)][
                -1
            ].status == "succeeded"
        [line] = [r async for r in client.iter_grade_batch_results(masked.id)]
        assert "unverified_local_numbers" not in line.result["checks"]
        [line] = [r async for r in client.iter_grade_batch_results(plain.id, redact=True)]
        assert line.result["checks"]["unverified_local_numbers"] == ["[phone]"]
        shown = [row async for row in client.export_grade_batch(plain.id, redact=True)]
        assert "[phone]" in shown[0] and "+61412345678" not in shown[0]


async def test_a_wrong_key_is_a_401_problem(served: str) -> None:
    async with AsyncHelmbenchClient(served, "hb_wrong") as client:
        with pytest.raises(ApiError) as refused:
            await client.list_targets()
    assert refused.value.status == 401 and refused.value.title == "Unauthorized"
