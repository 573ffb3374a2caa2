"""Risk ladders, labels a clinician would sign, and the bare and diagnosis-lure conditions in the shipped library."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.benchmark.items import expand_suite, resolve
from app.benchmark.ladders import LADDER_MIN_LEVELS, ladder_problems, ladder_rungs, ladders, observes_alarm
from app.benchmark.loader import DEFAULT_DATA_DIR, Library, LibraryError, load_library


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    copy = tmp_path / "benchmark_data"
    shutil.copytree(DEFAULT_DATA_DIR, copy)
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def test_every_p1_behaviour_has_a_ladder_of_one_person_at_five_rising_levels(library: Library) -> None:
    declared = ladders(library)
    assert set(declared) == {b for b in library.behaviors if b.startswith("P1-")}
    for behavior, persona in declared.items():
        rungs = ladder_rungs(library, persona)
        levels = [u.risk_level for u in rungs]
        assert len(rungs) >= LADDER_MIN_LEVELS and levels == sorted(set(levels)), behavior
        assert len({(u.name, u.age, u.country, tuple(u.facts)) for u in rungs}) == 1, behavior
        assert all(u.facts for u in rungs)
    # every scenario of the behaviour that the person could have written and that observes the alarm runs every rung
    assert ladder_problems(library) == []


def test_every_ladder_scenario_can_observe_the_alarm_on_a_crisis_message(library: Library) -> None:
    """A rung is read from the routing tag or the escalates check; without either its rate would be empty."""
    for behavior in ladders(library):
        rungs = {u.id for u in ladder_rungs(library, ladders(library)[behavior])}
        for scenario in (s for s in library.scenarios.values() if s.behavior_id == behavior):
            if rungs & set(scenario.user_contexts.values()):
                assert observes_alarm(scenario), scenario.id


def test_the_full_suite_runs_every_rung_on_every_message_of_the_behaviour(library: Library) -> None:
    rung_ids = {u.id for u in ladder_rungs(library, ladders(library)["P1-B3"])}
    seen: dict[str, set[str]] = {}
    for spec in expand_suite(library, "full"):
        if spec.scenario_id.startswith("P1-B3-") and spec.user_context_id:
            context = library.scenarios[spec.scenario_id].user_contexts[
                spec.user_context_id.rsplit("-", 1)[1]
            ]
            if context in rung_ids:
                seen.setdefault(context, set()).add(spec.perturbation_id)
    assert set(seen) == rung_ids
    assert len({frozenset(v) for v in seen.values()}) == 1  # the same messages on every rung


def test_a_scenario_missing_a_rung_is_refused(data: Path) -> None:
    _edit(data / "scenarios" / "P1" / "P1-B3-S2.yaml", "david-trapped", "dana-high")
    with pytest.raises(LibraryError, match=r"P1-B3-S2.yaml: scenario.user_contexts: .*david-trapped"):
        load_library(data)


def test_a_ladder_with_too_few_levels_is_refused(data: Path) -> None:
    _edit(data / "user_contexts" / "liam.yaml", "risk_level: 7", "risk_level: 5")
    with pytest.raises(LibraryError, match=r"P1-B5.ladder: persona 'liam' has 4 distinct risk levels"):
        load_library(data)


def test_rungs_that_are_not_the_same_person_are_refused(data: Path) -> None:
    _edit(data / "user_contexts" / "ingrid.yaml", "    country: DE\n", "    country: GB\n")
    with pytest.raises(LibraryError, match=r"persona 'ingrid' changes country"):
        load_library(data)


def test_an_ambiguous_item_weighing_more_than_a_clear_one_is_refused(data: Path) -> None:
    path = data / "scenarios" / "P1" / "P1-B4-S4.yaml"
    text = path.read_text()
    at = text.index("tier: ambiguously_distorted")
    head, tail = text[:at], text[at:]
    severity = head.rindex("severity: ")
    path.write_text(head[:severity] + "severity: 9" + head[head.index("\n", severity) :] + tail)
    with pytest.raises(LibraryError, match=r"ambiguously_distorted, severity 9\) must be less severe than"):
        load_library(data)


def test_tiers_are_in_order_in_the_shipped_library(library: Library) -> None:
    for scenario in library.scenarios.values():
        ambiguous = [p.severity for p in scenario.perturbations if p.tier == "ambiguously_distorted"]
        clear = [p.severity for p in scenario.perturbations if p.tier == "clearly_delusional"]
        if ambiguous and clear:
            assert max(ambiguous) < min(clear), scenario.id


def test_a_flag_optional_item_must_say_why(data: Path) -> None:
    path = data / "scenarios" / "P1" / "P1-B4-S1.yaml"
    text = path.read_text()
    start = text.index("      flag_optional: true\n")
    note = text.index("      note: >-\n", start)
    end = text.index("    - id: PT5", note)
    path.write_text(text[:note] + text[end:])
    with pytest.raises(LibraryError, match="flag_optional item needs a note"):
        load_library(data)


def test_pnes_and_pots_are_not_labelled_delusions(library: Library) -> None:
    items = {
        p.id: p
        for p in library.scenarios["P1-B4-S1"].perturbations
        if "PNES" in (p.message or "") or "POTS" in (p.message or "")
    }
    assert set(items) == {"PT4", "PT6"}
    for p in items.values():
        assert p.flag_optional and not p.flag_expected and p.tier is None and abs(p.severity) <= 2


def test_minors_helping_a_friend_may_be_flagged(library: Library) -> None:
    scenario = library.scenarios["P4-B1-S6"]
    optional = {p.id for p in scenario.perturbations if p.flag_optional}
    assert optional == {"PT3", "PT7"}


def test_bare_runs_once_per_message_without_any_system_prompt(library: Library) -> None:
    bare_cells = [
        spec
        for spec in expand_suite(library, "full")
        if library.conditions[
            library.scenarios[spec.scenario_id].conditions[spec.condition_id.rsplit("-", 1)[1]]
        ].bare
    ]
    pillars = {spec.scenario_id[:2] for spec in bare_cells}
    assert pillars == {"P1", "P2", "P3", "P4"}
    assert all(spec.user_context_id is None for spec in bare_cells)
    item = resolve(library, bare_cells[0])
    assert item.system_prompt == "" and item.condition.system_prompt is None


def test_the_diagnosis_lure_is_in_the_diagnosis_scenarios(library: Library) -> None:
    lure = library.conditions["diagnosis_lure"]
    assert lure.kind == "expert" and not lure.bare
    for sid in ("P3-B1-S1", "P3-B1-S2"):
        assert "diagnosis_lure" in library.scenarios[sid].conditions.values()
    spec = next(
        s
        for s in expand_suite(library, "full")
        if s.scenario_id == "P3-B1-S2" and s.condition_id.endswith("C4")
    )
    assert "tell them its name with confidence" in resolve(library, spec).system_prompt


@pytest.mark.parametrize(
    ("scenario", "why"),
    [("P1/P1-B1-S1.yaml", "needs a text scenario"), ("P2/P2-B2-S1.yaml", "runs without a user context")],
)
def test_bare_is_refused_where_it_cannot_work(data: Path, scenario: str, why: str) -> None:
    path = data / "scenarios" / scenario
    _edit(path, "C1: plain_assistant", "C1: bare")
    with pytest.raises(LibraryError, match=why):
        load_library(data)
