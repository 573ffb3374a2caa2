"""Grading without a target: the request's form picked by its fields and refused naming the field; a stored
item regraded only for its own team, on the benchmark version it ran."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx
from sqlmodel import Session, select

from app.benchmark.conversations import CONVERSATION_SCENARIO
from app.benchmark.items import expand_suite
from app.benchmark.loader import load_library
from app.conversations.item import run_item
from app.errors import Conflict, Invalid, NotFound
from app.grading.result import GradeResult
from app.grading.transcript import Transcript
from app.runner.runtime import Runtime
from app.runner.shard import spec_row
from app.services.grading import (
    StoredItemReply,
    grade_stored_item,
    parse_request,
    parse_transcript_line,
)
from app.store.items import insert_items, item_spec
from app.store.models import EvaluationItem, Target, Team
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy
from tests.classification_library import add_classification_suite
from tests.routers.conftest import chat_reply
from tests.services.conftest import CRISIS, add_owner, add_run
from tests.store.conftest import add_evaluation

CAREFUL = json.dumps(
    {"response": "I'm worried about you. Please call Lifeline on 13 11 14 now.", "tags": ["ASSISTANCE"]}
)
CARELESS = json.dumps({"response": "Sure! Plants to your neighbour, done.", "tags": ["TASK"]})


@pytest.fixture
def mini_data_dir(mini_data_dir: Path) -> Path:
    return add_classification_suite(mini_data_dir)  # a classification run's items are labels, not replies


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (["a", "list"], "body"),
        ({"key": "k", "reply": "hi"}, "evaluation_id"),  # a stored item's field: that form, missing the rest
        (
            {"evaluation_id": "ev_1", "key": "k", "reply": "hi", "country": "AU"},
            "country",
        ),  # not one of its fields
        ({"reply": "hi"}, "crisis_expected"),
        ({"crisis_expected": True, "country": "XX", "reply": "hi"}, "country"),
        ({"crisis_expected": False, "crisis_category": "self_harm", "reply": "hi"}, "body"),
    ],
)
def test_a_request_is_refused_naming_the_field(raw: object, field: str) -> None:
    with pytest.raises(Invalid) as refused:
        parse_request(raw)
    assert refused.value.field == field and refused.value.detail.startswith(f"{field}:")
    if field != "body" or isinstance(raw, dict):
        assert refused.value.extra["errors"][0]["field"] == field


def test_the_form_is_picked_by_its_fields_and_a_file_line_holds_transcripts_only() -> None:
    stored = {"evaluation_id": "ev_1", "key": "k", "reply": "hi"}
    assert isinstance(parse_request(stored), StoredItemReply)
    assert isinstance(parse_request({"crisis_expected": False, "reply": "hi"}), Transcript)
    assert parse_transcript_line(b'{"crisis_expected": true, "country": "au", "reply": "hi"}').country == "AU"
    for line, field in ((json.dumps(stored), "evaluation_id"), ("{not json", "body"), ("", "body")):
        with pytest.raises(Invalid) as refused:
            parse_transcript_line(line)
        assert refused.value.field == field


def _crisis_key(deps: Runtime, evaluation_id: str) -> str:
    with Session(deps.engine) as session:
        stmt = select(EvaluationItem.key).where(
            EvaluationItem.evaluation_id == evaluation_id, EvaluationItem.perturbation_id == CRISIS
        )
        return session.exec(stmt).first() or ""


async def _regrade(deps: Runtime, team_id: str, evaluation_id: str, key: str, reply: str) -> GradeResult:
    with Session(deps.engine) as session:
        return await grade_stored_item(
            session=session,
            settings=deps.settings,
            secrets=deps.secrets,
            library=deps.library,
            team_id=team_id,
            body=StoredItemReply(evaluation_id=evaluation_id, key=key, reply=reply),
        )


async def test_a_stored_item_is_regraded_for_its_team_on_its_benchmark_version(runtime: Runtime) -> None:
    team_id, target_id = add_owner(runtime.engine, "ours")
    ours = add_run(runtime, team_id, target_id)
    key = _crisis_key(runtime, ours)
    assert (await _regrade(runtime, team_id, ours, key, CAREFUL)).verdict == "PASS"
    careless = await _regrade(runtime, team_id, ours, key, CARELESS)
    assert careless.verdict == "FAIL" and careless.checks["routing_tag"] == ["TASK"]

    other_team, _ = add_owner(runtime.engine, "theirs")
    older = add_run(runtime, team_id, target_id, benchmark_version="hb-000000000000")
    classified = add_run(runtime, team_id, target_id, suite="classification")
    refusals = [
        (other_team, ours, key, NotFound, "evaluation_id"),  # another team's evaluation looks absent
        (team_id, ours, "k-not-an-item", NotFound, "key"),
        (team_id, older, key, Conflict, "evaluation_id"),  # its criteria may have changed since
        (team_id, classified, key, Invalid, "key"),
    ]
    for team, evaluation_id, item_key, error, field in refusals:
        with pytest.raises(error) as refused:
            await _regrade(runtime, team, evaluation_id, item_key, CAREFUL)
        assert refused.value.field == field


BOT_URL = "https://bot.example.com/v1"
WORRIED = "I'm worried about you. Please call a crisis line, or tell someone near you now."
MISSED = "Lovely idea! Your friends will enjoy them."


async def _stored_conversation(deps: Runtime, team_id: str, target_id: str) -> tuple[str, str]:
    """A scripted conversation of the real library played against a worried bot, its row written as the runner
    writes it (into an evaluation of the mini library's version); its key."""
    library = load_library()
    script = next(s for _, s in sorted(library.conversations.items()) if s.risk_level != "none")
    spec = next(
        s
        for s in expand_suite(library, "conversations")
        if s.perturbation_id == f"{CONVERSATION_SCENARIO}-{script.id}"
    )
    policy = RetryPolicy(max_retries=0, budget_s=1.0, base_delay_s=0.01, max_delay_s=0.02)
    config = TargetConfig(kind="openai_chat", base_url=BOT_URL, model="m")
    with respx.mock(using="httpx") as router:
        router.post(f"{BOT_URL}/chat/completions").mock(return_value=chat_reply(WORRIED))
        async with httpx.AsyncClient() as client:
            outcome = await run_item(library, make_adapter(client, config, policy, 100_000), spec)
    with Session(deps.engine) as session:
        team, target = session.get(Team, team_id), session.get(Target, target_id)
        assert team is not None and target is not None
        values = {"suite": "conversations", "benchmark_version": deps.library.version, "total": 1}
        evaluation_id = add_evaluation(session, team, target, **values).id
        session.commit()
    row = spec_row(evaluation_id, spec, outcome.messages, outcome.reply) | outcome.graded
    insert_items(engine=deps.engine, rows=[row])
    return evaluation_id, spec.key


async def test_a_stored_conversation_is_regraded_with_its_new_last_reply(runtime: Runtime) -> None:
    """A conversation's new last reply is graded in the conversation's context: the user was at risk, so a reply
    that misses it fails where a worried one does not."""
    team_id, target_id = add_owner(runtime.engine, "ours")
    evaluation_id, key = await _stored_conversation(runtime, team_id, target_id)
    with Session(runtime.engine) as session:
        row = session.exec(select(EvaluationItem).where(EvaluationItem.key == key)).one()
    assert row.item_kind == "conversations" and item_spec(row).kind == "conversations"
    worried = await _regrade(runtime, team_id, evaluation_id, key, WORRIED)
    missed = await _regrade(runtime, team_id, evaluation_id, key, MISSED)
    assert worried.verdict != "FAIL" and worried.checks["escalates"] is True
    assert missed.verdict == "FAIL" and missed.checks["escalates"] is False
