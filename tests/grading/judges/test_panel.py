"""A panel of 1-3 judges (respx-mocked): median score, median verdict, every judge's answers kept, a judge with
no usable answer left out; and where a panel's configs come from."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace

import httpx
import pytest
import respx
from pydantic import ValidationError

from app.config import Settings
from app.grading.grader import judge_configs_for_evaluation, judge_configs_from_settings
from app.grading.judges.judge import JudgeConfig, Panel, PanelResult, panel_verdict
from app.schemas import EvaluationCreate, JudgeCreate
from app.security.secrets import SecretBox
from app.services.evaluations import _judge_fields
from app.targets.retry import RetryPolicy
from tests.grading.judges.test_judge import CASE, answer

BOX = SecretBox(["ZmDfcTF7_60GrrY167zsiPd67pEvs0aGOv2oasOM1Pg="])


def config(name: str, **extra: object) -> JudgeConfig:
    return JudgeConfig(base_url=f"http://{name}.test/v1", model=f"judge-{name}", **extra)  # type: ignore[arg-type]


def said(verdict: str, score: int) -> httpx.Response:
    return answer(json.dumps({"verdict": verdict, "score": score, "rationale": f"{verdict.lower()} reply"}))


@pytest.fixture
def judges_api() -> Iterator[respx.MockRouter]:
    with respx.mock(using="httpx", assert_all_called=False) as router:
        yield router


async def ask(*configs: JudgeConfig) -> PanelResult:
    async with httpx.AsyncClient() as client:
        panel = Panel(client, configs, policy=RetryPolicy(max_retries=0, budget_s=5))
        return await panel.judge(CASE)


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["PASS"], "PASS"),
        (["PASS", "PASS", "FAIL"], "PASS"),  # one outlier moves nothing
        (["PASS", "FAIL", "FAIL"], "FAIL"),
        (["PASS", "PARTIAL", "FAIL"], "PARTIAL"),  # a three-way split takes the middle
        (["PASS", "FAIL"], "FAIL"),  # two judges apart: the worse stands
        (["PASS", "PARTIAL"], "PARTIAL"),
        ([], None),
    ],
)
def test_the_panel_verdict_is_the_median_with_ties_to_the_worse(verdicts: list[str], expected: str) -> None:
    assert panel_verdict(verdicts) == expected


async def test_three_judges_give_the_median_and_each_keeps_its_raw_answers(
    judges_api: respx.MockRouter,
) -> None:
    judges_api.post("http://a.test/v1/chat/completions").mock(return_value=said("PASS", 5))
    judges_api.post("http://b.test/v1/chat/completions").mock(return_value=said("PARTIAL", 4))
    judges_api.post("http://c.test/v1/chat/completions").mock(return_value=said("FAIL", 1))
    result = await ask(config("a"), config("b", samples=2), config("c"))
    assert (result.score, result.verdict, result.panel_scores) == (4.0, "PARTIAL", [5.0, 4.0, 1.0])
    assert result.rationale == "judge-b: partial reply"
    record = result.record()
    assert [j["model"] for j in record["judges"]] == ["judge-a", "judge-b", "judge-c"]
    assert len(record["judges"][1]["samples"]) == 2  # judge b's own k samples
    assert json.loads(record["judges"][2]["samples"][0]["raw"][0])["score"] == 1


async def test_a_judge_that_fails_or_rambles_is_left_out_of_the_median(judges_api: respx.MockRouter) -> None:
    judges_api.post("http://a.test/v1/chat/completions").mock(return_value=said("PASS", 5))
    judges_api.post("http://b.test/v1/chat/completions").mock(return_value=httpx.Response(500))
    judges_api.post("http://c.test/v1/chat/completions").mock(return_value=said("PARTIAL", 2))
    result = await ask(config("a"), config("b"), config("c"))
    assert result.panel_scores == [5.0, None, 2.0] and result.score == 3.5 and result.verdict == "PARTIAL"
    assert result.record()["judges"][1]["samples"][0]["error"]

    judges_api.post("http://c.test/v1/chat/completions").mock(return_value=answer("no JSON from me"))
    nobody = await ask(config("b"), config("c", parse_retries=0))
    assert not nobody.scored and nobody.panel_scores == [None, None] and nobody.score is None


def test_a_panel_has_one_to_three_judges() -> None:
    for size in (0, 4):
        with pytest.raises(ValueError, match="1 to 3 judges"):
            Panel(httpx.AsyncClient(), [config(str(i)) for i in range(size)])


def test_the_default_panel_comes_from_helmbench_judges(monkeypatch: pytest.MonkeyPatch) -> None:
    panel = [
        {"base_url": "http://a.test/v1/", "model": "ja", "api_key": "sk-a"},
        {"base_url": "http://b.test/v1", "model": "jb", "samples": 3},
    ]
    monkeypatch.setenv("HELMBENCH_JUDGES", json.dumps(panel))
    monkeypatch.setenv("HELMBENCH_JUDGE_SEED", "7")
    configs = judge_configs_from_settings(Settings())
    assert [(c.base_url, c.model, c.api_key, c.samples, c.seed) for c in configs] == [
        ("http://a.test/v1", "ja", "sk-a", 1, 7),
        ("http://b.test/v1", "jb", None, 3, 7),
    ]
    with pytest.raises(ValidationError, match="not both"):
        Settings(judge_base_url="http://x.test/v1", judge_model="x")
    monkeypatch.setenv("HELMBENCH_JUDGES", json.dumps(panel * 2))
    with pytest.raises(ValidationError, match="at most 3"):
        Settings()


def test_an_evaluation_panel_round_trips_with_its_keys_sealed() -> None:
    settings = Settings(
        target_allowlist="127.0.0.0/8", judge_base_url="http://default.test/v1", judge_model="d"
    )
    body = EvaluationCreate(
        target_id="tgt_x",
        judges=[
            JudgeCreate(base_url="http://127.0.0.1:9921/v1", model="ja"),
            JudgeCreate(base_url="http://127.0.0.1:9922/v1", model="jb", api_key="sk-b", samples=3),
        ],
    )
    stored = _judge_fields(settings, BOX, body)
    assert "sk-b" not in json.dumps(stored["judge_config"]) and "sk-b" not in stored["judge_api_key_secret"]
    configs = judge_configs_for_evaluation(settings, BOX, SimpleNamespace(**stored))
    assert [(c.model, c.api_key, c.samples) for c in configs] == [("ja", None, 1), ("jb", "sk-b", 3)]
    keyless = _judge_fields(settings, BOX, EvaluationCreate(target_id="t", judge=body.panel()[0]))
    assert keyless["judge_api_key_secret"] is None
    assert [c.model for c in judge_configs_for_evaluation(settings, BOX, SimpleNamespace(**keyless))] == [
        "ja"
    ]
