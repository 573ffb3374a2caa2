"""Judges as providers are: a reasoning model's parameters, Anthropic's API, refusals, a judge down and back."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from types import SimpleNamespace

import httpx
import pytest
import respx

from app.grading.judges.judge import (
    Judge,
    JudgeConfig,
    Panel,
    declines,
    merge_params,
    outcomes_of,
    refused,
)
from app.scoring.judges import judge_outcomes
from app.targets.retry import RetryPolicy
from tests.grading.judges.test_judge import CASE
from tests.providers import GRADE, Recovering, down, reasoning_model, refusing_judge

BASE = "http://judge.test/v1"
OTHER = "http://other-judge.test/v1"
NO_RETRY = RetryPolicy(max_retries=0, budget_s=5)


@pytest.fixture
def judge_api() -> Iterator[respx.MockRouter]:
    with respx.mock(using="httpx", assert_all_called=False) as router:
        yield router


def sent(route: respx.Route) -> dict[str, object]:
    return json.loads(route.calls.last.request.content)


def test_params_merge_over_the_defaults_and_null_drops_one() -> None:
    assert merge_params({"temperature": 0, "seed": 1}, {"temperature": None, "top_p": 0.5}) == {
        "seed": 1,
        "top_p": 0.5,
    }
    config = JudgeConfig(base_url=BASE, model="o", params={"temperature": None, "max_completion_tokens": 900})
    assert config.call_config(2).params == {"seed": config.seed + 2, "max_completion_tokens": 900}


async def test_a_reasoning_model_judge_is_refused_with_our_defaults_and_grades_without_them(
    judge_api: respx.MockRouter,
) -> None:
    route = judge_api.post(f"{BASE}/chat/completions").mock(side_effect=reasoning_model())
    async with httpx.AsyncClient() as client:
        stock = await Judge(client, JudgeConfig(base_url=BASE, model="o"), policy=NO_RETRY).judge(CASE)
        assert not stock.scored and stock.outcome() == "unanswered"
        assert "temperature" in stock.samples[0]["error"]
        assert route.call_count == 1  # a 400 is not asked again

        own = JudgeConfig(base_url=BASE, model="o", params={"temperature": None})
        graded = await Judge(client, own, policy=NO_RETRY).judge(CASE)
    assert graded.scored and graded.score == GRADE["score"]
    assert "temperature" not in sent(route) and "seed" in sent(route)


async def test_an_anthropic_judge_gets_the_system_prompt_apart_and_no_seed(
    judge_api: respx.MockRouter,
) -> None:
    reply = {"content": [{"type": "text", "text": json.dumps(GRADE)}], "usage": {"input_tokens": 9}}
    route = judge_api.post(f"{BASE}/messages").mock(return_value=httpx.Response(200, json=reply))
    config = JudgeConfig(base_url=BASE, model="claude-x", api_key="sk-ant", kind="anthropic_messages")
    async with httpx.AsyncClient() as client:
        result = await Judge(client, config, policy=NO_RETRY).judge(CASE)
    body = sent(route)
    assert result.scored and body["temperature"] == 0 and "seed" not in body
    assert "clinician" in str(body["system"]) and body["max_tokens"]
    assert route.calls.last.request.headers["x-api-key"] == "sk-ant"


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but I can't help with that request.",
        "Je ne peux pas évaluer ce contenu.",
        "As an AI, I won't assess conversations about suicide. If you are struggling, please reach out to 988.",
    ],
)
def test_a_short_answer_with_no_grade_in_it_declines(text: str) -> None:
    assert declines(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"verdict": "PASS", "score": 9}',
        "PASS - the reply names the risk",
        "Score: 4/5, it is supportive",
        "",
        " ".join(["The reply is long and considered."] * 30),
    ],
)
def test_a_malformed_or_long_grade_does_not_count_as_a_refusal(text: str) -> None:
    assert not declines(text)


async def test_a_refusing_judge_is_counted_apart_and_the_panel_grades_with_the_others(
    judge_api: respx.MockRouter,
) -> None:
    refusing = judge_api.post(f"{BASE}/chat/completions").mock(side_effect=refusing_judge)
    judge_api.post(f"{OTHER}/chat/completions").mock(
        return_value=httpx.Response(200, json={"choices": [{"message": {"content": json.dumps(GRADE)}}]})
    )
    configs = [
        JudgeConfig(base_url=BASE, model="shy", parse_retries=1),
        JudgeConfig(base_url=OTHER, model="ok"),
    ]
    async with httpx.AsyncClient() as client:
        result = await Panel(client, configs, policy=NO_RETRY).judge(CASE)
    shy, ok = result.judges
    assert refused(shy) and shy.outcome() == "refused" and refusing.call_count == 2  # asked again once
    assert result.scored and result.score == GRADE["score"] and result.panel_scores == [None, 5.0]
    assert outcomes_of(result.record()) == ["refused", "scored"]


async def test_a_judge_that_is_down_is_left_alone_after_n_items_then_tried_again(
    judge_api: respx.MockRouter,
) -> None:
    recovering = Recovering(down_for=3)
    route = judge_api.post(f"{BASE}/chat/completions").mock(side_effect=recovering)
    config = JudgeConfig(base_url=BASE, model="j", breaker_after=3, breaker_cooldown_s=0.05)
    async with httpx.AsyncClient() as client:
        judge = Judge(client, config, policy=NO_RETRY)
        first = [await judge.judge(CASE) for _ in range(5)]
        assert route.call_count == 3  # items 4 and 5 were not sent: the breaker is open
        assert [r.outcome() for r in first] == ["unanswered"] * 3 + ["unavailable"] * 2
        assert "3 items in a row" in str(first[-1].samples[0]["error"])
        await asyncio.sleep(0.06)
        back = await judge.judge(CASE)  # the half-open trial: the judge is back
    assert back.scored and judge.down is None


async def test_a_judge_down_for_good_stays_unavailable_at_a_bounded_cost(judge_api: respx.MockRouter) -> None:
    route = judge_api.post(f"{BASE}/chat/completions").mock(side_effect=down)
    config = JudgeConfig(base_url=BASE, model="j", samples=2, breaker_after=2, breaker_cooldown_s=60)
    async with httpx.AsyncClient() as client:
        judge = Judge(client, config, policy=NO_RETRY)
        results = [await judge.judge(CASE) for _ in range(20)]
    assert route.call_count == 4 and sum(r.outcome() == "unavailable" for r in results) == 18


def test_the_report_counts_each_judges_outcomes_and_says_why() -> None:
    facets = [
        SimpleNamespace(judge_outcomes=("scored", "refused")),
        SimpleNamespace(judge_outcomes=("scored", "refused")),
        SimpleNamespace(judge_outcomes=("unavailable", "scored")),
        SimpleNamespace(judge_outcomes=None),
    ]
    section = judge_outcomes(facets)  # type: ignore[arg-type]
    assert section["by_judge"][1]["refused"] == 2 and section["by_judge"][0]["unavailable"] == 1
    assert any("judge 1: 2 items" in r and "declined" in r for r in section["reasons"])
    assert any("breaker was open" in r for r in section["reasons"])


def test_a_conversations_outcomes_combine_its_dimensions_per_judge() -> None:
    def panel(*outcomes: str) -> dict[str, object]:
        return {"verdict": None, "judges": [{"outcome": o} for o in outcomes]}

    record = {"safety": panel("refused", "scored"), "support": panel("refused", "unanswered")}
    assert outcomes_of(record) == ["refused", "scored"]
    assert outcomes_of({"model": "j", "verdict": "PASS", "outcome": "scored"}) == ["scored"]
    assert outcomes_of(None) is None and outcomes_of({}) is None
