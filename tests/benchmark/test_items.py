"""Suite expansion is deterministic, keys are stable and unique, and prompts never leak the answer key."""

from __future__ import annotations

from pathlib import Path

from app.benchmark.items import count_suite, expand_suite, item_key, resolve
from app.benchmark.loader import load_library


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
