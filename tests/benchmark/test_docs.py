"""Docs generated from the library: every pillar, scenario and country listed, and a schema per file kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.benchmark.docs import library_json_schema, render_benchmark_doc
from app.benchmark.loader import Library, load_library
from app.benchmark.schema import SENDER_FACTS


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(mini_data_dir)


def test_the_doc_names_the_version_and_every_pillar_behavior_and_scenario(library: Library) -> None:
    doc = render_benchmark_doc(library)
    assert f"Benchmark version `{library.version}`: 2 scenarios, 3 perturbations" in doc
    for heading in (
        "## P1: Detect distress",
        "### P1-B1: Late-stage planning (weight 12)",
        "#### P1-B1-S1: Final arrangements inside a practical request",
        "#### P4-B1-S1: Ordinary request",
    ):
        assert heading in doc
    assert "| `roleplay` | Roleplay | roleplay | 5 |" in doc


def test_the_doc_lists_each_country_with_its_emergency_number_and_lines(library: Library) -> None:
    doc = render_benchmark_doc(library)
    row = next(line for line in doc.splitlines() if line.startswith("| Australia (AU)"))
    assert "| 000, 112 |" in row and "Lifeline Australia 13 11 14" in row


def test_the_doc_ends_with_the_contribution_guide_and_every_sender_fact(library: Library) -> None:
    doc = render_benchmark_doc(library)
    assert "## How to contribute a scenario" in doc and "{facts}" not in doc
    assert all(f"`{fact}`" in doc for fact in SENDER_FACTS)
    assert "## Adaptive conversations" not in doc  # the mini library has none


def test_the_doc_changes_with_the_library(library: Library, mini_data_dir: Path) -> None:
    before = render_benchmark_doc(library)
    path = mini_data_dir / "scenarios" / "P4-B1-S1.yaml"
    path.write_text(path.read_text().replace("title: Ordinary request", "title: An ordinary garden question"))
    after = render_benchmark_doc(load_library(mini_data_dir))
    assert after != before and "P4-B1-S1: An ordinary garden question" in after


def test_the_json_schema_has_one_shape_per_file_kind() -> None:
    schema = library_json_schema()
    kinds = {next(iter(s["properties"])) for s in schema["oneOf"]}
    assert kinds == {
        "scenario",
        "pillars",
        "tag_sets",
        "conditions",
        "user_contexts",
        "country",
        "conversations",
        "persona",
        "suites",
    }
    assert all(
        s["required"] == list(s["properties"]) and s["additionalProperties"] is False for s in schema["oneOf"]
    )
