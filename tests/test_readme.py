"""Every count the README quotes about the library is the library's: `helmbench data stats` says the same."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app.benchmark.loader import DEFAULT_DATA_DIR, load_library
from app.grading.checks import CHECKS
from app.services.catalogue import stats

README = Path(__file__).resolve().parents[1] / "README.md"

# What a number before these words counts, as `helmbench data stats` names it.
NOUNS = {
    "persona cards": "personas",
    "personas": "personas",
    "pillars": "pillars",
    "behaviors": "behaviors",
    "scenarios": "scenarios",
    "perturbations": "perturbations",
    "conditions": "conditions",
    "user contexts": "user_contexts",
    "countries": "countries",
    "conversation scripts": "conversation_scripts",
}
CLAIM = re.compile(r"\b(\d[\d,]*) (?:[a-z-]+ )?(" + "|".join(NOUNS) + r")\b")


@cache
def library_stats() -> dict[str, Any]:
    return stats(load_library(DEFAULT_DATA_DIR, known_checks=CHECKS.keys()))


def counted(key: str) -> int:
    value = library_stats()[key]
    return value["count"] if isinstance(value, dict) else int(value)


def test_the_readme_quotes_at_least_the_persona_count() -> None:
    """The check below must see something: a rewording that hides every count from it fails here."""
    assert any(noun == "persona cards" for _, noun in CLAIM.findall(README.read_text()))


@pytest.mark.parametrize(("number", "noun"), CLAIM.findall(README.read_text()))
def test_each_count_of_the_library_is_true(number: str, noun: str) -> None:
    assert int(number.replace(",", "")) == counted(NOUNS[noun]), f"README: {number} {noun}"


def test_the_watch_example_runs_as_many_items_as_its_suite_has() -> None:
    text = README.read_text()
    example = text[text.index("$ EV=$(helmbench submit") :]
    example = example[: example.index("```")]
    suite = re.search(r"--suite (\w+)", example)
    repeats = re.search(r"--repeats (\d+)", example)
    assert suite is not None
    items = library_stats()[f"items_{suite.group(1)}"] * (int(repeats.group(1)) if repeats else 1)
    totals = {int(total) for total in re.findall(r"\b\d+/(\d+)\b", example)}
    assert totals == {items}, f"the example shows {totals} items; --suite {suite.group(1)} has {items}"


def test_the_layout_section_maps_every_package_and_top_level_module() -> None:
    """A newcomer looks a folder up in the README's Layout table: every package of app/ and every module at its
    top has a line there."""
    layout = README.read_text().split("## Layout", 1)[1].split("\n## ", 1)[0]
    app = README.parent / "app"
    packages = {p.name for p in app.iterdir() if (p / "__init__.py").exists()}
    missing = sorted(f"app/{name}" for name in packages if f"`app/{name}`" not in layout)
    modules = {p.name for p in app.glob("*.py") if p.name != "__init__.py"}
    missing += sorted(name for name in modules if f"{name}`" not in layout)  # `name` or `app/name`
    assert not missing, f"README's Layout section does not name: {missing}"
