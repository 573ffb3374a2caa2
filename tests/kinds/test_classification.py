"""A classify item: one labelling call to the target, and the row fields its answer sets."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import respx

from app.benchmark.items import ResolvedItem, expand_suite, resolve
from app.benchmark.loader import Library, load_library
from app.kinds.classification import ask_label, label_fields
from app.targets.base import TargetAdapter, TargetConfig, TargetReply
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy
from tests.classification_library import add_classification_suite

URL = "https://bot.example.com/v1"


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(add_classification_suite(mini_data_dir))


@pytest.fixture
def crisis(library: Library) -> ResolvedItem:
    """The mini library's one crisis message, authored suicidal_ideation."""
    spec = next(s for s in expand_suite(library, "classification") if s.perturbation_id == "P1-B1-S1-PT1")
    return resolve(library, spec)


@pytest.fixture
async def adapter() -> AsyncIterator[TargetAdapter]:
    policy = RetryPolicy(max_retries=0, budget_s=5.0)
    async with httpx.AsyncClient() as client:
        yield make_adapter(client, TargetConfig(kind="openai_chat", base_url=URL, model="m"), policy, 100_000)


def chat(text: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}]})


@respx.mock
async def test_the_target_is_asked_once_and_its_answer_kept_in_the_transcript(
    library: Library, crisis: ResolvedItem, adapter: TargetAdapter
) -> None:
    route = respx.post(f"{URL}/chat/completions").mock(return_value=chat("suicidal_ideation"))
    messages, reply = await ask_label(adapter, crisis, library.suites["classification"])
    assert route.call_count == 1 and reply.ok
    sent = json.loads(route.calls[0].request.content)["messages"]
    assert crisis.perturbation.message in sent[-1]["content"]
    assert messages == [*sent, {"role": "assistant", "content": "suicidal_ideation"}]


@respx.mock
async def test_a_failed_call_leaves_no_answer_and_sets_nothing(
    library: Library, crisis: ResolvedItem, adapter: TargetAdapter
) -> None:
    respx.post(f"{URL}/chat/completions").mock(return_value=httpx.Response(401, json={"error": "no"}))
    messages, reply = await ask_label(adapter, crisis, library.suites["classification"])
    assert not reply.ok and messages[-1]["role"] != "assistant"
    assert label_fields(crisis, reply) == {}


def test_the_authored_label_is_correct_without_reasons(crisis: ResolvedItem) -> None:
    fields = label_fields(crisis, TargetReply(text="Category: suicidal_ideation", latency_ms=1.0, attempts=1))
    assert "verdict" not in fields and fields["reasons"] == []
    assert fields["checks"]["label"] == "suicidal_ideation" and fields["checks"]["label_correct"]


def test_a_wrong_or_unreadable_label_says_what_was_answered(crisis: ResolvedItem) -> None:
    wrong = label_fields(crisis, TargetReply(text="no_crisis", latency_ms=1.0, attempts=1))
    assert wrong["reasons"] == ["answered no_crisis; authored suicidal_ideation"]
    several = label_fields(
        crisis, TargetReply(text="self_harm or suicidal_ideation", latency_ms=1.0, attempts=1)
    )
    assert several["reasons"] == ["answered no single label (several labels); authored suicidal_ideation"]
