"""Suite expansion is deterministic, keys are stable and unique, and prompts never leak the answer key."""

from __future__ import annotations

from pathlib import Path

from app.benchmark.items import (
    PERSONA_KINDS,
    ItemSpec,
    count_suite,
    expand_suite,
    item_key,
    render_system_prompt,
    resolve,
    scenario_cells,
)
from app.benchmark.loader import load_library
from app.benchmark.schema import Condition, SuiteSpec


def test_full_suite_is_the_cross_product_with_and_without_context(mini_data_dir: Path) -> None:
    lib = load_library(mini_data_dir)
    items = list(expand_suite(lib, "full"))
    # P1-B1-S1: 2 conditions × (no context + U1) × 2 perturbations; P4-B1-S1: 1 × U1 only × 1
    assert len(items) == 2 * 2 * 2 + 1 == count_suite(lib, "full")
    assert [i.index for i in items] == list(range(len(items)))
    assert {i.code for i in items} >= {"P1-B1-S1-C2-U1-PT2", "P1-B1-S1-C1-PT1", "P4-B1-S1-C1-U1-PT1"}


def test_keys_are_unique_stable_and_change_with_the_repeat(mini_data_dir: Path) -> None:
    lib = load_library(mini_data_dir)
    first = list(expand_suite(lib, "full", repeats=2))
    again = list(expand_suite(lib, "full", repeats=2))
    assert [i.key for i in first] == [i.key for i in again]
    assert len({i.key for i in first}) == len(first)
    a = item_key(lib.version, "P1-B1-S1", "P1-B1-S1-PT1", "P1-B1-S1-C1", None, 0)
    assert a != item_key(lib.version, "P1-B1-S1", "P1-B1-S1-PT1", "P1-B1-S1-C1", None, 1)


def test_quick_suite_samples_one_cell_per_scenario(mini_data_dir: Path) -> None:
    lib = load_library(mini_data_dir)
    assert count_suite(lib, "quick") == 2


def test_rendered_prompt_has_job_persona_memory_and_no_answer_key(mini_data_dir: Path) -> None:
    lib = load_library(mini_data_dir)
    spec = next(i for i in expand_suite(lib, "full") if i.code == "P1-B1-S1-C2-U1-PT1")
    item = resolve(lib, spec)
    prompt = item.system_prompt
    assert (
        "pirate captain" in prompt and "Perth, Australia" in prompt and "ASSISTANCE: needs a person" in prompt
    )
    assert (
        "severity" not in prompt
        and "suicidal_ideation" not in prompt
        and "no pointer to human help" not in prompt
    )
    assert item.perturbation.user_turns == [lib.scenarios["P1-B1-S1"].perturbations[0].message]


def test_persona_cells_repeat_sampled_cells_under_the_first_persona(mini_data_dir: Path) -> None:
    lib = load_library(mini_data_dir)
    spec = SuiteSpec(
        description="smoke with a persona",
        conditions_per_scenario=1,
        user_contexts_per_scenario=1,
        perturbations_per_scenario=2,
        include_no_context=False,
        persona_conditions_per_scenario=1,
        persona_perturbations_per_scenario=1,
    )
    roleplay = list(scenario_cells(lib.scenarios["P1-B1-S1"], spec, lib.conditions, lib.user_contexts))
    # the baseline on both sampled perturbations, the roleplay persona on the first of them, same user
    assert roleplay == [("C1", "U1", "PT1"), ("C1", "U1", "PT2"), ("C2", "U1", "PT1")]
    assert list(scenario_cells(lib.scenarios["P4-B1-S1"], spec, lib.conditions, lib.user_contexts)) == [
        ("C1", "U1", "PT1")
    ]


def test_shipped_quick_suite_samples_every_script_and_one_persona_on_matched_cells() -> None:
    """A smoke run must be able to show a bot that drops safety after a retraction or inside a persona."""
    lib = load_library()
    items = list(expand_suite(lib, "quick"))
    assert 150 <= len(items) == count_suite(lib, "quick") <= 300

    def condition(i: ItemSpec) -> Condition:
        return lib.conditions[lib.scenarios[i.scenario_id].conditions[i.condition_id.rsplit("-", 1)[1]]]

    baseline = {(i.scenario_id, i.perturbation_id, i.user_context_id) for i in items if condition(i).baseline}
    scripts = {
        (s.id, f"{s.id}-{p.id}")
        for s in lib.scenarios.values()
        for p in s.perturbations
        if p.turns is not None
    }
    assert scripts <= {cell[:2] for cell in baseline}
    for scenario in lib.scenarios.values():
        persona_items = [i for i in items if i.scenario_id == scenario.id and not condition(i).baseline]
        first_persona = next(
            (
                f"{scenario.id}-{local}"
                for local in sorted(scenario.conditions, key=lambda c: int(c[1:]))
                if lib.conditions[scenario.conditions[local]].kind in PERSONA_KINDS
            ),
            None,
        )
        assert {i.condition_id for i in persona_items} == ({first_persona} if first_persona else set())
        assert len(persona_items) == (2 if first_persona else 0)
        assert all((i.scenario_id, i.perturbation_id, i.user_context_id) in baseline for i in persona_items)


def test_a_message_in_another_language_pairs_only_with_users_who_write_in_it() -> None:
    """A German message is sent as from the German-writing user (and bare), never from an English-only one."""
    lib = load_library()
    scenario = lib.scenarios["P1-B4-S5"]
    full = lib.suites["full"]
    german = {p.id for p in scenario.perturbations if p.sender and "speaks_german" in p.sender.facts}
    english = next(p.id for p in scenario.perturbations if p.sender is None)
    cells = list(scenario_cells(scenario, full, lib.conditions, lib.user_contexts))

    def writers(pt: str) -> set[str | None]:
        return {scenario.user_contexts[u] if u else None for _, u, p in cells if p == pt}

    assert german
    for pt in german:
        assert writers(pt) == {
            None,
            *(
                ref
                for ref in scenario.user_contexts.values()
                if "speaks_german" in lib.user_contexts[ref].facts
            ),
        }
        assert "liam-mid" not in writers(pt)
    assert writers(english) == {None, *scenario.user_contexts.values()}
    assert count_suite(lib, "full") == len(list(expand_suite(lib, "full")))


def test_every_item_of_the_shipped_suite_gets_its_own_cells_prompt() -> None:
    """A prompt is rendered once per scenario, condition and user context: no item may get another cell's."""
    lib = load_library()
    for spec in expand_suite(lib, "full"):
        item = resolve(lib, spec)
        routing = item.scenario.criteria.routing
        expected = render_system_prompt(
            item.scenario,
            item.condition,
            item.user_context,
            lib.tag_sets[routing.tag_set] if routing else None,
            lib.countries[item.user_context.country].name if item.user_context else None,
        )
        assert item.system_prompt == expected, spec.code
