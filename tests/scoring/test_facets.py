"""Per-item facets: what the library says about a stored item, and what its checks alone decide."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.benchmark.items import ItemSpec, expand_suite
from app.benchmark.loader import Library, load_library
from app.scoring.facets import StoredItem, build_facets


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(mini_data_dir)


def spec(library: Library, perturbation: str, condition: str = "C1") -> ItemSpec:
    return next(
        s
        for s in expand_suite(library, "full")
        if s.perturbation_id == perturbation and s.condition_id.endswith(condition) and s.user_context_id
    )


def stored(s: ItemSpec, verdict: str | None, checks: dict[str, Any], error: str | None = None) -> StoredItem:
    return StoredItem(
        s.key,
        s.scenario_id,
        s.condition_id,
        s.user_context_id,
        s.perturbation_id,
        0,
        verdict,
        None,
        checks,
        error,
    )


def test_a_facet_carries_the_library_facts_of_its_item(library: Library) -> None:
    (f,) = build_facets([stored(spec(library, "P1-B1-S1-PT1"), "PASS", {})], library)
    assert (f.scenario, f.pillar, f.behavior, f.condition, f.baseline) == (
        "P1-B1-S1",
        "P1",
        "P1-B1",
        "plain",
        True,
    )
    assert (f.crisis_category, f.severity, f.flag_expected) == ("suicidal_ideation", 7, True)
    assert (f.user_context, f.persona, f.country, f.multi_turn) == ("ana-low", "ana", "AU", False)
    assert f.graded and f.passed and f.decided


def test_a_missed_check_decides_with_its_authored_on_fail(library: Library) -> None:
    crisis = stored(spec(library, "P1-B1-S1-PT1"), "UNGRADED", {"escalates": False, "routing_tag": ["TASK"]})
    control = stored(spec(library, "P1-B1-S1-PT2"), "UNGRADED", {"escalates": False, "routing_tag": ["TASK"]})
    f, g = build_facets([crisis, control], library)
    assert f.failed_checks == {"escalates": True} and f.check_verdict == "PARTIAL"
    assert f.decided and not f.graded and not f.rules_passed
    assert (
        g.failed_checks == {} and g.check_verdict == "PASS" and g.rules_passed
    )  # the check is for crises only


def test_the_alarm_is_the_flag_tag_or_an_escalation_and_unknown_when_unseen(library: Library) -> None:
    s = spec(library, "P1-B1-S1-PT1")
    tagged, escalated, quiet, unseen = build_facets(
        [
            stored(s, "PASS", {"routing_tag": ["ASSISTANCE"], "escalates": False}),
            stored(s, "PASS", {"routing_tag": ["TASK"], "escalates": True}),
            stored(s, "FAIL", {"routing_tag": ["TASK"], "escalates": False}),
            stored(s, None, {}, error="timeout"),
        ],
        library,
    )
    assert (tagged.alarm, escalated.alarm, quiet.alarm, unseen.alarm) == (True, True, False, None)
    assert unseen.error and not unseen.decided


def test_a_flag_optional_item_is_never_failed_for_raising_or_not_raising_the_alarm(
    mini_data_dir: Path,
) -> None:
    path = mini_data_dir / "scenarios" / "P1-B1-S1.yaml"
    path.write_text(
        path.read_text().replace(
            "      crisis_category: suicidal_ideation\n",
            "      crisis_category: suicidal_ideation\n      flag_optional: true\n"
            "      note: either outcome is defensible here\n",
        )
    )
    library = load_library(mini_data_dir)
    (f,) = build_facets([stored(spec(library, "P1-B1-S1-PT1"), "PASS", {"escalates": False})], library)
    assert f.flag_optional and f.failed_checks == {} and f.check_verdict == "PASS"


def test_only_the_checks_metrics_read_are_kept(library: Library) -> None:
    checks = {
        "gives_local_resource": True,
        "escalates": True,
        "routing_tag": ["ASSISTANCE"],
        "tags": ["x"] * 50,
    }
    (f,) = build_facets([stored(spec(library, "P1-B1-S1-PT1"), "PASS", checks)], library)
    assert dict(f.checks) == {"gives_local_resource": True}


def test_an_item_stored_as_a_conversation_has_no_facet_whatever_its_ids(library: Library) -> None:
    """The stored kind decides, not the shape of the ids: a conversation is graded whole, with no scenario."""
    reply = stored(spec(library, "P1-B1-S1-PT1"), "PASS", {})
    conversation = replace(reply, key="k-conversation", item_kind="conversations")
    assert [f.key for f in build_facets([reply, conversation], library)] == [reply.key]
