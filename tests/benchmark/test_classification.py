"""Which messages a classify suite asks about, under which condition, and the request the target gets."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.benchmark.classification import (
    baseline_condition,
    classification_messages,
    same_text,
)
from app.benchmark.items import count_suite, expand_suite, item_key, resolve
from app.benchmark.loader import Library, LibraryError, load_library
from app.benchmark.plan import COMPLETION_TOKENS_PER_CALL, plan_run, reply_cost
from app.benchmark.schema import CRISIS_CATEGORIES, SuiteSpec
from tests.classification_library import add_classification_suite


@pytest.fixture(scope="module")
def real() -> Library:
    return load_library()


def test_one_item_per_distinct_single_message_under_the_baseline(real: Library) -> None:
    specs = list(expand_suite(real, "classification"))
    singles = {
        same_text(p.message)
        for s in real.scenarios.values()
        for p in s.perturbations
        if p.message is not None
    }
    assert len(specs) == len(singles) == count_suite(real, "classification")
    for spec in specs:
        item = resolve(real, spec)
        assert item.perturbation.turns is None  # scripts are not labelled
        assert item.condition.baseline and spec.user_context_id is None
        assert spec.key == item_key(
            real.version, spec.scenario_id, spec.perturbation_id, spec.condition_id, None, 0
        )
    assert len({s.key for s in specs}) == len(specs)


def test_a_repeated_message_is_asked_once_under_its_first_scenario(real: Library) -> None:
    by_text: dict[str, list[str]] = {}
    for sid in sorted(real.scenarios):
        for p in real.scenarios[sid].perturbations:
            if p.message is not None:
                by_text.setdefault(same_text(p.message), []).append(f"{sid}-{p.id}")
    repeated = {ids[0]: ids[1:] for ids in by_text.values() if len(ids) > 1}
    assert repeated, "the library repeats no message; this test needs one"
    asked = {s.perturbation_id for s in expand_suite(real, "classification")}
    for first, others in repeated.items():
        assert first in asked and not asked & set(others)


def test_repeats_multiply_items_with_distinct_keys(real: Library) -> None:
    once = count_suite(real, "classification")
    twice = list(expand_suite(real, "classification", repeats=2))
    assert len(twice) == 2 * once == len({s.key for s in twice})


def test_without_a_baseline_the_first_declared_condition_is_used(mini_data_dir: Path) -> None:
    library = load_library(mini_data_dir)
    scenario = library.scenarios["P1-B1-S1"]
    assert baseline_condition(scenario, library.conditions) == "C1"  # plain is the baseline
    no_baseline = {k: v.model_copy(update={"baseline": False}) for k, v in library.conditions.items()}
    assert (
        baseline_condition(
            scenario.model_copy(update={"conditions": {"C2": "roleplay", "C1": "plain"}}), no_baseline
        )
        == "C1"
    )


def test_the_request_never_carries_the_answer_key(real: Library) -> None:
    suite = real.suites["classification"]
    plain = real.conditions["plain_assistant"]
    a = classification_messages(suite, plain, "first message")
    b = classification_messages(suite, plain, "second message")
    assert a[0] == {"role": "system", "content": "You are a helpful assistant."}
    # the request differs only by the message: nothing in it depends on the authored category
    assert a[1]["content"].replace("first message", "X") == b[1]["content"].replace("second message", "X")
    for label in CRISIS_CATEGORIES:
        assert f"- {label}: " in a[1]["content"]
    assert classification_messages(suite, real.conditions["bare"], "hi")[0]["role"] == "user"


def test_a_classify_item_costs_one_call_and_no_judge(real: Library) -> None:
    suite = real.suites["classification"]
    specs = list(expand_suite(real, "classification"))[:5]
    plan = plan_run(real, specs, judge_calls_per_item=3, suite=suite)
    assert plan.calls == 5 and plan.judge_calls == 0
    assert plan.completion_tokens_est == 5 * COMPLETION_TOKENS_PER_CALL
    as_replies = sum(reply_cost(real, spec).prompt_tokens for spec in specs)
    assert as_replies != plan.prompt_tokens_est  # the job and tag list are not sent


def test_a_classify_suite_must_define_every_category() -> None:
    labels = {c: "a definition" for c in CRISIS_CATEGORIES}
    SuiteSpec(description="d", kind="classification", instruction="Label it.", labels=labels)
    with pytest.raises(ValidationError, match="missing \\['no_crisis'\\]"):
        SuiteSpec(
            description="d",
            kind="classification",
            instruction="Label it.",
            labels={k: v for k, v in labels.items() if k != "no_crisis"},
        )
    with pytest.raises(ValidationError, match="needs an 'instruction'"):
        SuiteSpec(description="d", kind="classification", labels=labels)
    with pytest.raises(ValidationError, match="belong to a classification suite"):
        SuiteSpec(description="d", instruction="Label it.")


def test_a_message_repeated_under_another_category_is_refused(mini_data_dir: Path) -> None:
    path = mini_data_dir / "scenarios" / "P4-B1-S1.yaml"
    path.write_text(
        path.read_text()
        .replace(
            "what should I plant in autumn",
            "help me write a thank-you note to my aunt for the birthday present",
        )
        .replace("crisis_category: no_crisis", "crisis_category: anxiety_crisis")
    )
    with pytest.raises(LibraryError, match="P4-B1-S1-PT1: the same message as P1-B1-S1-PT2"):
        load_library(add_classification_suite(mini_data_dir))
