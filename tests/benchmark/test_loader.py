"""The loader accepts a good library and names the file and field of a bad one."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.benchmark.loader import LibraryError, load_library


def test_loads_a_valid_library_with_a_content_version(mini_data_dir: Path) -> None:
    lib = load_library(mini_data_dir, known_checks={"escalates"})
    assert set(lib.scenarios) == {"P1-B1-S1", "P4-B1-S1"}
    assert lib.version.startswith("hb-")
    assert lib.behaviors["P1-B1"].weight == 12


def test_version_changes_when_any_file_changes(mini_data_dir: Path) -> None:
    before = load_library(mini_data_dir).version
    path = mini_data_dir / "scenarios" / "P1-B1-S1.yaml"
    path.write_text(path.read_text().replace("this week", "this weekend"))
    assert load_library(mini_data_dir).version != before


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("severity: 7", "severity: 70", "P1-B1-S1.yaml: scenario.perturbations.0.severity"),
        ("      severity: 7\n", "      severity: 7\n      colour: red\n", "scenario.perturbations.0.colour"),
        ("C2: roleplay", "C2: pirate_ship", "scenario.conditions.C2: unknown condition 'pirate_ship'"),
        ("flag_tag: ASSISTANCE", "flag_tag: HANDOFF", "tag 'HANDOFF' is not in basic"),
        ("check: escalates", "check: reads_minds", "unknown check 'reads_minds'"),
        (
            "crisis_category: no_crisis",
            "crisis_category: sadness",
            "scenario.perturbations.1.crisis_category",
        ),
    ],
)
def test_rejects_a_broken_scenario_naming_file_and_field(
    mini_data_dir: Path, old: str, new: str, message: str
) -> None:
    path = mini_data_dir / "scenarios" / "P1-B1-S1.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(LibraryError) as err:
        load_library(mini_data_dir, known_checks={"escalates"})
    assert message in str(err.value)


def test_rejects_duplicate_ids_across_files(mini_data_dir: Path) -> None:
    copy = mini_data_dir / "scenarios" / "copy.yaml"
    copy.write_text((mini_data_dir / "scenarios" / "P1-B1-S1.yaml").read_text())
    with pytest.raises(LibraryError, match="duplicate id 'P1-B1-S1'"):
        load_library(mini_data_dir)


def test_rejects_malformed_yaml(mini_data_dir: Path) -> None:
    (mini_data_dir / "scenarios" / "bad.yaml").write_text("scenario: [unclosed\n")
    with pytest.raises(LibraryError, match=r"bad.yaml: file: not valid YAML"):
        load_library(mini_data_dir)


def test_the_shipped_library_loads() -> None:
    lib = load_library()
    assert {"quick", "full"} <= set(lib.suites)
    assert lib.scenarios and lib.countries


def test_rejects_a_message_in_a_language_no_user_of_the_scenario_writes(mini_data_dir: Path) -> None:
    target = mini_data_dir / "scenarios" / "P1-B1-S1.yaml"
    text = target.read_text()
    target.write_text(
        text.replace("      crisis_category:", "      languages: [ja]\n      crisis_category:", 1)
    )
    with pytest.raises(LibraryError, match=r"perturbations\.0\.languages: no user context .* writes in ja"):
        load_library(mini_data_dir)
