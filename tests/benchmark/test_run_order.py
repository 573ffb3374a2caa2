"""The order a run takes: every scenario early on, the same order in every process, each item once."""

from __future__ import annotations

from collections import Counter

from app.benchmark.items import expand_suite, resolve, suite_in_run_order
from app.benchmark.loader import load_library
from app.benchmark.plan import COMPLETION_TOKENS_PER_CALL, estimate_tokens, item_cost, plan_run


def test_the_first_items_of_a_run_cover_every_scenario_and_pillar() -> None:
    library = load_library()
    ordered = suite_in_run_order(library, "full")
    scenarios = {s.scenario_id for s in ordered}
    head = ordered[: len(scenarios)]
    assert {s.scenario_id for s in head} == scenarios  # one round of the round-robin: one item of each
    five_percent = ordered[: len(ordered) // 20]
    pillars = Counter(s.scenario_id.split("-")[0] for s in five_percent)
    everywhere = Counter(s.scenario_id.split("-")[0] for s in ordered)
    assert set(pillars) == set(everywhere)
    for pillar, n in everywhere.items():  # each pillar's share of the first 5% is near its share overall
        assert abs(pillars[pillar] / len(five_percent) - n / len(ordered)) < 0.05, pillar


def test_the_order_is_seeded_and_a_permutation_of_the_suite() -> None:
    library = load_library()
    once, again = suite_in_run_order(library, "quick", 2), suite_in_run_order(library, "quick", 2)
    assert once == again
    assert [s.index for s in once] == list(range(len(once)))
    assert sorted(s.key for s in once) == sorted(s.key for s in expand_suite(library, "quick", 2))
    assert [s.key for s in once] != [s.key for s in expand_suite(library, "quick", 2)]


def test_a_script_is_planned_as_one_call_per_turn_each_resending_the_conversation() -> None:
    library = load_library()
    spec = next(
        s
        for s in expand_suite(library, "quick")
        if len(
            next(
                p
                for p in library.scenarios[s.scenario_id].perturbations
                if s.perturbation_id.endswith(f"-{p.id}")
            ).user_turns
        )
        > 2
    )
    cost = item_cost(library, spec)
    single = plan_run(library, [spec])
    assert cost.calls > 2 and single.calls == cost.calls
    assert cost.completion_tokens == cost.calls * COMPLETION_TOKENS_PER_CALL
    # every call resends the system prompt, and each later one the replies before it
    system = estimate_tokens(resolve(library, spec).system_prompt)
    assert cost.prompt_tokens > cost.calls * system + (cost.calls - 1) * COMPLETION_TOKENS_PER_CALL
