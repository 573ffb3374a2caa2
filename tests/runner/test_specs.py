"""Shards slice one expansion of a suite: the same items in the same run order, kept for two suites at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.benchmark.items import count_suite, suite_in_run_order
from app.benchmark.loader import Library, load_library
from app.runner.specs import KEEP, SuiteSpecs


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(mini_data_dir)


def test_slices_cover_the_run_order_without_gap_or_overlap(library: Library) -> None:
    specs = SuiteSpecs()
    whole = suite_in_run_order(library, "full", 2)
    assert len(whole) > 3
    parts = [specs.slice(library, "full", 2, start, start + 3) for start in range(0, len(whole), 3)]
    assert [s for part in parts for s in part] == whole


def test_a_suite_is_expanded_once_and_the_oldest_of_more_than_keep_dropped(library: Library) -> None:
    specs = SuiteSpecs()
    specs.slice(library, "full", 1, 0, 1)
    first = specs.cache[(library.version, "full", 1)]
    specs.slice(library, "full", 1, 1, 2)
    assert specs.cache[(library.version, "full", 1)] is first  # not expanded again
    specs.slice(library, "quick", 1, 0, 1)
    specs.slice(library, "full", 1, 0, 1)  # used again: now the newest
    specs.slice(library, "full", 3, 0, 1)
    assert len(specs.cache) == KEEP
    assert list(specs.cache) == [(library.version, "full", 1), (library.version, "full", 3)]


def test_repeats_are_a_different_expansion_with_their_own_keys(library: Library) -> None:
    specs = SuiteSpecs()
    once = specs.slice(library, "full", 1, 0, 100)
    twice = specs.slice(library, "full", 2, 0, 100)
    assert len(twice) == 2 * len(once)
    assert {s.key for s in once} < {s.key for s in twice}


def test_a_slice_past_the_end_is_short_or_empty(library: Library) -> None:
    specs = SuiteSpecs()
    total = len(suite_in_run_order(library, "full", 1))
    assert len(specs.slice(library, "full", 1, total - 1, total + 5)) == 1
    assert specs.slice(library, "full", 1, total, total + 5) == []


def test_warming_expands_the_largest_suites_before_any_shard_asks(library: Library) -> None:
    specs = SuiteSpecs()
    specs.warm(library)
    largest = sorted(library.suites, key=lambda name: count_suite(library, name), reverse=True)[:KEEP]
    assert set(specs.cache) == {(library.version, name, 1) for name in largest}
    kept = specs.cache[(library.version, largest[0], 1)]
    assert (
        specs.slice(library, largest[0], 1, 0, len(kept)) == kept == suite_in_run_order(library, largest[0])
    )
