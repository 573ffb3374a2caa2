"""The shipped library: the original's ids, coverage of at-risk groups, minimum sizes, and content safety."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.benchmark.docs import render_benchmark_doc
from app.benchmark.loader import DEFAULT_DATA_DIR, Library, load_library
from app.cli.main import app
from app.grading.checks import CHECKS
from app.services.catalogue import stats

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL_SCENARIOS = [
    "P1-B1-S1",
    "P1-B2-S1",
    "P1-B3-S1",
    "P1-B4-S1",
    "P1-B4-S2",
    "P1-B5-S1",
    "P2-B2-S1",
    "P3-B1-S1",
    "P4-B1-S1",
]
ORIGINAL_BEHAVIORS = [
    "P1-B1",
    "P1-B2",
    "P1-B3",
    "P1-B4",
    "P1-B5",
    "P2-B1",
    "P2-B2",
    "P2-B3",
    "P2-B4",
    "P2-B5",
    "P3-B1",
    "P4-B1",
]
# At-risk groups the personas must cover (a benchmark that omits them cannot see their harms), as group words
# to find in each persona's `groups`.
AT_RISK_GROUPS = [
    "lgbtq",
    "indigenous",
    "domestic violence",
    "alcohol|drug|substance",
    "bereave",
    "chronic",
    "veteran",
    "migrant",
    "divorce",
    "stigma",
]
# Method detail is refused by shape, not by storing it: a number next to a unit of dose, quantity or height.
METHOD_DETAIL = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:mg|milligrams?|mcg|grams?|g|ml|millilit(?:re|er)s?|tablets?|pills?|capsules?|"
    r"doses?|met(?:re|er)s?|m|feet|ft|stor(?:e)?ys?|floors?)\b",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library(known_checks=CHECKS.keys())


def test_meets_the_issue_minimums(library: Library) -> None:
    s = stats(library)
    assert s["scenarios"] >= 40 and s["perturbations"] >= 400 and s["conditions"] >= 6
    assert s["user_contexts"] >= 12 and s["personas"] >= 12 and s["countries"]["count"] >= 12
    assert s["multi_turn_scripts"] >= 10 and s["false_positive_scenarios"] >= 4 and s["items_full"] >= 5000
    assert 150 <= s["items_quick"] <= 300
    styled = sum(
        v for k, v in s["by_language_style"].items() if k not in ("standard", "typos", "terse", "formal")
    )
    assert styled >= 30
    assert set(s["by_pillar"]) == {"P1", "P2", "P3", "P4"}


def test_every_original_id_is_present(library: Library) -> None:
    assert set(ORIGINAL_SCENARIOS) <= set(library.scenarios)
    assert set(ORIGINAL_BEHAVIORS) <= set(library.behaviors)
    assert any(c.original_id and "Johora" in c.name for c in library.conditions.values())
    assert len(library.scenarios["P1-B4-S1"].perturbations) >= 7


def test_review_expansions(library: Library) -> None:
    p2 = [s for s in library.scenarios.values() if s.pillar_id == "P2"]
    assert len(p2) >= 4 and {s.behavior_id for s in p2} >= {"P2-B1", "P2-B2", "P2-B3", "P2-B4", "P2-B5"}
    kinds = {c.kind for c in library.conditions.values()}
    assert {"companion", "customer_service", "product_tool", "roleplay"} <= kinds
    ages = [u.age for u in library.user_contexts.values()]
    assert min(ages) <= 17 and max(ages) >= 70
    assert any("non-binary" in u.gender.lower() for u in library.user_contexts.values())
    groups = " ".join(g.lower() for u in library.user_contexts.values() for g in u.groups)
    missing = [g for g in AT_RISK_GROUPS if not re.search(g, groups)]
    assert not missing, f"no persona covers {missing}"
    tiers = {p.tier for s in library.scenarios.values() if s.behavior_id == "P1-B4" for p in s.perturbations}
    assert {"clearly_delusional", "ambiguously_distorted"} <= tiers
    p1b3 = [s for s in library.scenarios.values() if s.behavior_id == "P1-B3"]
    assert all(
        s.criteria.routing and s.criteria.routing.partial_tags for s in p1b3 if s.output == "tags_json"
    )
    categories = {p.crisis_category for s in library.scenarios.values() for p in s.perturbations}
    assert len(categories) == 9  # the paper's six categories, psychosis and emotional reliance, and no_crisis


def test_every_crisis_number_has_a_source_and_every_user_country_has_resources(library: Library) -> None:
    for country in library.countries.values():
        assert country.emergency and country.lines
        assert all(str(line.source).startswith("http") for line in country.lines)
    assert {u.country for u in library.user_contexts.values()} <= set(library.countries)


def test_every_country_with_crisis_data_is_graded_by_the_resource_check(library: Library) -> None:
    """Data for a country nobody lives in is never exercised: each country needs a user context in a scenario
    whose criteria run gives_local_resource."""
    graded = {
        library.user_contexts[ctx].country
        for s in library.scenarios.values()
        if any(c.check == "gives_local_resource" for c in s.criteria.checks)
        for ctx in s.user_contexts.values()
    }
    assert set(library.countries) - graded == set()


BEYOND_SUICIDE = (
    "anxiety_crisis",
    "self_harm",
    "substance_abuse_or_withdrawal",
    "violent_thoughts",
    "risk_taking_behaviours",
)


def test_every_crisis_category_is_measured_at_strength(library: Library) -> None:
    """Enough distinct messages per category for a per-category rate to mean something, with matched controls."""
    messages: dict[str, set[str]] = {c: set() for c in BEYOND_SUICIDE}
    for s in library.scenarios.values():
        for p in s.perturbations:
            if p.crisis_category in messages:
                messages[p.crisis_category].add(" ".join(p.user_turns[-1].lower().split()))
    assert {c: len(m) for c, m in messages.items() if len(m) < 25} == {}
    behaviour = [s for s in library.scenarios.values() if s.behavior_id == "P1-B6"]
    assert {p.crisis_category for s in behaviour for p in s.perturbations} == {*BEYOND_SUICIDE, "no_crisis"}
    for s in behaviour:
        assert sum(p.crisis_category == "no_crisis" for p in s.perturbations) >= 8, s.id
        styles = {st for p in s.perturbations for st in p.style} - {"standard"}
        assert len(styles) >= 3, s.id
    crisis = [p.message or "" for s in behaviour for p in s.perturbations if p.flag_expected]
    long_ones = [m for m in crisis if 100 <= len(m.split()) <= 400]
    assert len(long_ones) >= 0.3 * len(crisis)


def test_no_single_word_gives_the_crisis_messages_away(library: Library) -> None:
    """A word spotter fails: no word that appears only in a scenario's crisis messages (never in its controls)
    covers more than half of them, so the controls share the words that mark the crises."""
    for s in (s for s in library.scenarios.values() if s.behavior_id == "P1-B6"):
        words = [set(re.findall(r"[a-z']+", (p.message or "").lower())) for p in s.perturbations]
        crisis = [w for w, p in zip(words, s.perturbations, strict=True) if p.flag_expected]
        control_words = set().union(
            *(w for w, p in zip(words, s.perturbations, strict=True) if not p.flag_expected)
        )
        spotters = {word: sum(word in w for w in crisis) for word in set().union(*crisis) - control_words}
        assert max(spotters.values()) <= len(crisis) / 2, (s.id, max(spotters, key=spotters.__getitem__))


def test_no_message_carries_method_detail(library: Library) -> None:
    offenders = [
        f"{s.id}-{p.id}: {m[:60]}"
        for s in library.scenarios.values()
        for p in s.perturbations
        for m in p.user_turns
        if METHOD_DETAIL.search(m)
    ]
    assert offenders == []


def test_data_validate_passes_and_names_a_broken_file(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["data", "validate"])
    assert ok.exit_code == 0 and "ok: hb-" in ok.output
    broken = tmp_path / "benchmark_data"
    shutil.copytree(DEFAULT_DATA_DIR, broken)
    target = broken / "scenarios" / "P3" / "P3-B1-S1.yaml"
    target.write_text(target.read_text().replace("crisis_category:", "crisis_categry:", 1))
    bad = runner.invoke(app, ["data", "validate", str(broken)])
    assert bad.exit_code == 1
    assert "scenarios/P3/P3-B1-S1.yaml" in bad.output and "crisis_categry" in bad.output


def test_stats_json_has_the_documented_keys() -> None:
    import json

    result = CliRunner().invoke(app, ["data", "stats", "--json"])
    body = json.loads(result.output)
    for key in (
        "scenarios",
        "perturbations",
        "conditions",
        "user_contexts",
        "countries",
        "multi_turn_scripts",
        "false_positive_scenarios",
        "items_full",
        "items_quick",
        "by_pillar",
        "by_crisis_category",
    ):
        assert key in body


def test_docs_benchmark_md_is_current(library: Library) -> None:
    assert (ROOT / "docs" / "benchmark.md").read_text() == render_benchmark_doc(library), (
        "run `helmbench data docs` after editing benchmark_data/"
    )
