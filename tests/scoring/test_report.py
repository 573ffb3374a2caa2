"""The report over real library ids: every section, facets looked up by id, and fast at 5,000 items."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.benchmark.items import ItemSpec, expand_suite
from app.benchmark.loader import load_library
from app.scoring.facets import StoredItem, build_facets
from app.scoring.report import build_report

SECTIONS = (
    "headline",
    "overall",
    "by_pillar",
    "by_behavior",
    "by_scenario",
    "by_condition",
    "by_user_context",
    "by_country",
    "by_crisis_category",
    "sensitivity",
    "over_escalation",
    "harmful_rate",
    "persona_robustness",
    "country_resources",
    "sustained_safety",
    "worst_of_k",
    "tiers",
    "ladders",
    "checks",
    "judges",
)


def _stored(
    spec: ItemSpec,
    verdict: str,
    checks: dict[str, Any],
    *,
    score: float | None = None,
    repeat: int | None = None,
) -> StoredItem:
    """The stored row of an expanded item (another repeat of it when `repeat` is given)."""
    key = spec.key if repeat is None else f"{spec.key}-r{repeat}"
    return StoredItem(
        key,
        spec.scenario_id,
        spec.condition_id,
        spec.user_context_id,
        spec.perturbation_id,
        spec.repeat if repeat is None else repeat,
        verdict,
        score,
        checks,
        None,
    )


def _items(count: int, seed: int = 3) -> list[StoredItem]:
    library = load_library()
    rng = random.Random(seed)
    every = list(expand_suite(library, "full", repeats=2))
    specs = every[:: max(1, len(every) // count)][:count]  # spread over the suite, so every section has items
    return [
        _stored(
            s,
            rng.choice(["PASS", "PASS", "PARTIAL", "FAIL", "UNGRADED"]),
            {"escalates": rng.random() < 0.5, "gives_local_resource": rng.random() < 0.5},
            score=float(rng.randint(1, 5)),
        )
        for s in specs
    ]


def test_report_of_5000_items_has_every_section_and_is_reproducible() -> None:
    library = load_library()
    items = _items(5000)
    report = build_report(items, library)
    assert report["n_items"] == 5000 and all(report[s] for s in SECTIONS)
    assert report["headline"]["interval"] is not None and report["overall"]["mean_score"]["interval"]
    assert build_report(items, library)["headline"] == report["headline"]  # seeded: reproducible


def test_report_names_every_pillar_and_behaviour_and_reads_the_headline_on_0_100() -> None:
    library = load_library()
    report = build_report(_items(800), library)
    headline = report["headline"]
    assert report["report_version"] == 6
    assert headline["score_100"] == round(headline["score"] * 100, 2)
    assert headline["quality_100"] == round(headline["quality"] * 100, 2)
    assert headline["band"] in "ABCDE" and headline["band_meaning"]
    assert ("cap" in headline) == headline[
        "capped"
    ]  # the cap in words, only where a floor held the score down
    for section, table in (("by_pillar", library.pillars), ("by_behavior", library.behaviors)):
        assert report[section] and all(row["name"] == table[g].name for g, row in report[section].items())
    assert all(v["name"] == library.behaviors[b].name for b, v in headline["behaviors"].items())
    assert {f: v["name"] for f, v in headline["floors"].items()} == {
        "P1": "detection",
        "P2": "safe handoff",
        "restraint": "restraint",
    }
    assert set(headline["pillars"]) | set(headline["behaviors"]) <= set(headline["names"])
    assert headline["names"]["P1"] == library.pillars["P1"].name


def test_facets_come_from_the_library_by_id(mini_data_dir: Path) -> None:
    library = load_library(mini_data_dir)
    spec = next(
        s for s in expand_suite(library, "full") if s.user_context_id and s.condition_id.endswith("C2")
    )
    stored = _stored(spec, "PASS", {"routing_tag": ["TASK"], "escalates": True})
    gone = StoredItem("x", "P9-B9-S9", "P9-B9-S9-C1", None, "P9-B9-S9-PT1", 0, "PASS", None, {}, None)
    (f,) = build_facets([stored, gone], library)
    assert (f.condition, f.baseline, f.country, f.pillar, f.behavior) == (
        "roleplay",
        False,
        "AU",
        "P1",
        "P1-B1",
    )
    assert f.alarm is True  # no ASSISTANCE tag, but the reply escalated
    assert f.failed_checks == ({} if not f.flag_expected else {"escalates": False})


def test_repeats_of_a_cell_share_their_cell_and_check_outcomes() -> None:
    """A 100,000-item report holds one facet per item; what repeats share must be one object, not a copy each."""
    library = load_library()
    spec = next(s for s in expand_suite(library, "full") if s.user_context_id)
    checks = {"escalates": True, "gives_local_resource": True}
    stored = [_stored(spec, "PASS", dict(checks), repeat=r) for r in range(3)]
    first, *others = build_facets(stored, library)
    assert first.checks == {"gives_local_resource": True}
    for f in others:
        assert f.cell is first.cell and f.checks is first.checks and f.failed_checks is first.failed_checks
        assert f.repeat != first.repeat and f.key != first.key


def test_the_judges_section_reads_panel_scores_and_rules_grades() -> None:
    library = load_library()
    rng = random.Random(5)
    items = []
    for i, item in enumerate(_items(300)):
        score = rng.randint(1, 5)
        rogue = (
            (5 if score <= 3 else 1) if i % 10 == 0 else score
        )  # one in ten: the third judge sees it otherwise
        panel = [float(score), float(score), None if i % 7 == 0 else float(rogue)]
        items.append(replace(item, score=float(score), panel_scores=panel, rules_score=score))
    judges = build_report(items, library)["judges"]
    assert judges["panel"]["n_judges"] == 3 and judges["panel"]["n_items"] == 300
    assert 0.5 < judges["panel"]["alpha"] < 1.0
    assert judges["panel"]["by_judge"][2]["n_unusable"] == len(range(0, 300, 7))
    split = {i["key"] for i in judges["disagreements"]["items"]}
    assert items[10].key in split and items[1].key not in split
    assert judges["rules_vs_judge"]["n"] == 300 and judges["rules_vs_judge"]["kappa"] == 1.0


def test_ungraded_and_error_shares_are_reported() -> None:
    library = load_library()
    items = _items(40)
    items[0] = replace(items[0], verdict=None, score=None, checks={}, error_class="timeout")
    report = build_report(items, library)
    assert report["n_items"] == 40
    assert report["ungraded_share"] == round(report["n_ungraded"] / 40, 4)
    assert report["n_errors"] == 1 and report["error_share"] == 0.025


def test_notes_say_what_was_not_measured(mini_data_dir: Path) -> None:
    library = load_library(mini_data_dir)
    items = [
        StoredItem(
            s.key,
            s.scenario_id,
            s.condition_id,
            s.user_context_id,
            s.perturbation_id,
            s.repeat,
            "UNGRADED",
            None,
            {},
            None,
        )
        for s in expand_suite(library, "quick")
    ]
    notes = " ".join(build_report(items, library)["notes"])
    assert "await a judge" in notes and "Persona robustness not measured" in notes
    assert "Over-escalation not measured" in notes and "Worst-of-k" in notes and "failed" not in notes
