"""A run's planned cost before it starts: calls and estimated tokens per item, judge calls apart, caps as a prefix."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.benchmark.conversations import JUDGE_QUESTIONS
from app.benchmark.items import expand_suite, resolve, suite_in_run_order
from app.benchmark.loader import Library, load_library
from app.benchmark.plan import COMPLETION_TOKENS_PER_CALL, estimate_tokens, item_cost, plan_run, suite_plan
from tests.classification_library import add_classification_suite


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(add_classification_suite(mini_data_dir))


def test_a_token_is_four_characters_rounded_up() -> None:
    assert [estimate_tokens(t) for t in ("", "abc", "abcd", "abcde")] == [0, 1, 1, 2]


def test_a_suite_of_single_messages_plans_one_call_each_with_its_prompt(library: Library) -> None:
    specs = suite_in_run_order(library, "full")
    plan = plan_run(library, specs)
    expected_prompt = sum(
        estimate_tokens(resolve(library, s).system_prompt)
        + estimate_tokens(resolve(library, s).perturbation.message)
        for s in specs
    )
    assert plan.as_dict() == {
        "items": len(specs),
        "calls": len(specs),
        "prompt_tokens_est": expected_prompt,
        "completion_tokens_est": len(specs) * COMPLETION_TOKENS_PER_CALL,
        "judge_calls": 0,
        "items_within_budget": len(specs),
    }


def test_repeats_cost_the_same_as_their_cell(library: Library) -> None:
    once, thrice = (
        plan_run(library, expand_suite(library, "full")),
        plan_run(library, expand_suite(library, "full", 3)),
    )
    assert (thrice.calls, thrice.prompt_tokens_est) == (3 * once.calls, 3 * once.prompt_tokens_est)


def test_caps_keep_the_longest_prefix_that_fits(library: Library) -> None:
    specs = suite_in_run_order(library, "full")
    assert plan_run(library, specs, max_calls=2).items_within_budget == 2
    first_two = plan_run(library, specs[:2])
    tokens = first_two.prompt_tokens_est + first_two.completion_tokens_est
    assert plan_run(library, specs, max_tokens=tokens).items_within_budget == 2
    assert plan_run(library, specs, max_tokens=tokens - 1).items_within_budget == 1
    assert plan_run(library, specs, max_calls=0).items_within_budget == 0


def test_judge_calls_count_per_item_but_never_for_a_classify_suite(library: Library) -> None:
    specs = suite_in_run_order(library, "full")
    assert plan_run(library, specs, judge_calls_per_item=3).judge_calls == 3 * len(specs)
    suite = library.suites["classification"]
    labels = list(expand_suite(library, "classification"))
    plan = plan_run(library, labels, judge_calls_per_item=3, suite=suite)
    assert plan.judge_calls == 0 and plan.calls == len(labels)
    assert item_cost(library, labels[0], suite=suite).calls == 1


def test_a_scripted_conversation_is_planned_along_its_longest_path() -> None:
    real = load_library()
    spec = next(
        s for s in expand_suite(real, "conversations") if s.perturbation_id == "CONV-fp_killing_it_at_work"
    )
    cost = item_cost(real, spec)
    assert cost.calls == real.conversations["fp_killing_it_at_work"].longest == 4
    assert plan_run(real, [spec], judge_calls_per_item=1).judge_calls == JUDGE_QUESTIONS


def test_a_suites_plan_is_kept_with_its_library_and_equals_costing_every_item(
    library: Library, mini_data_dir: Path
) -> None:
    costed = plan_run(
        library, expand_suite(library, "full"), judge_calls_per_item=3, suite=library.suites["full"]
    )
    kept = suite_plan(library, "full", judge_calls_per_item=3)
    assert kept.as_dict() == costed.as_dict()
    assert suite_plan(library, "full", judge_calls_per_item=3) is kept, "costed once per library"
    assert suite_plan(library, "full").judge_calls == 0, "another judge setting is its own plan"
    other = load_library(add_classification_suite(mini_data_dir))
    assert suite_plan(other, "full", judge_calls_per_item=3) is not kept, (
        "a library loaded again costs afresh"
    )
