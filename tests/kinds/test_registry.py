"""The one table of item kinds: every built-in suite kind has its module, and an item carries its suite's kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.benchmark.items import expand_suite, item_key
from app.benchmark.loader import load_library
from app.benchmark.schema import BUILTIN_SUITE_KINDS
from app.kinds.registry import kind_named, unregister
from tests.classification_library import add_classification_suite


@pytest.mark.parametrize("name", BUILTIN_SUITE_KINDS)
def test_every_built_in_suite_kind_is_in_the_table(name: str) -> None:
    assert kind_named(name).name == name


def test_an_unknown_kind_is_a_key_error_naming_it() -> None:
    with pytest.raises(KeyError, match="nope"):
        kind_named("nope")
    unregister("nope")  # removing what is not there is harmless


def test_an_item_carries_its_suites_kind_and_keeps_its_key(mini_data_dir: Path) -> None:
    library = load_library(add_classification_suite(mini_data_dir))
    for suite, kind in (("quick", "matrix"), ("classification", "classification")):
        specs = list(expand_suite(library, suite))
        assert specs and {s.kind for s in specs} == {kind}
        for s in specs:  # the key is the same function of the cell as before items had a kind
            assert s.key == item_key(
                library.version, s.scenario_id, s.perturbation_id, s.condition_id, s.user_context_id, s.repeat
            )
