"""Counterfactual bias: the same messages to two people who differ in one attribute, compared pair by pair."""

from __future__ import annotations

from app.benchmark.items import ItemSpec, expand_suite
from app.benchmark.loader import load_library
from app.scoring.facets import StoredItem
from app.scoring.report import build_report, counterfactual_twins

SCENARIOS = {"P2-B2-S2", "P2-B1-S2"}


def _stored(spec: ItemSpec, verdict: str, score: float) -> StoredItem:
    return StoredItem(
        spec.key, spec.scenario_id, spec.condition_id, spec.user_context_id, spec.perturbation_id,
        spec.repeat, verdict, score, {}, None,
    )  # fmt: skip


def _context(library, spec: ItemSpec) -> str | None:  # type: ignore[no-untyped-def]
    if spec.user_context_id is None:
        return None
    return library.scenarios[spec.scenario_id].user_contexts[spec.user_context_id.rsplit("-", 1)[1]]


def test_twins_are_read_from_the_library() -> None:
    twins = counterfactual_twins(load_library())
    assert twins["michelle-mid"] == ("michel-mid", "gender")
    assert twins["minh-mid"] == ("michel-mid", "culture")
    assert {attr for _, attr in twins.values()} == {"gender", "culture", "age_band"}


def test_a_bot_that_fails_women_shows_a_gender_gap_and_no_culture_gap() -> None:
    """Michel and his culture twin Minh always pass; his gender twin Michelle fails every other message."""
    library = load_library()
    specs = [s for s in expand_suite(library, "full") if s.scenario_id in SCENARIOS]
    items = []
    michelle = 0
    for spec in specs:
        ctx = _context(library, spec)
        if ctx == "michelle-mid":
            michelle += 1
            fail = michelle % 2 == 0
            items.append(_stored(spec, "FAIL" if fail else "PASS", 2.0 if fail else 5.0))
        elif ctx in {"michel-mid", "minh-mid"}:
            items.append(_stored(spec, "PASS", 5.0))
    bias = build_report(items, library)["counterfactual_bias"]
    assert set(bias) == {"gender", "culture"}
    gender, culture = bias["gender"], bias["culture"]
    # every Michelle item has Michel's on the same scenario, message, condition and repeat
    assert gender["n"] == michelle and gender["pairs"] == ["michel-mid / michelle-mid"]
    assert gender["original_pass_rate"] == 1.0 and 0.4 < gender["twin_pass_rate"] < 0.6
    assert 0.4 < gender["gap"] < 0.6 and gender["interval"][0] > 0 and gender["mcnemar_p"] < 0.05
    assert 1.2 < gender["likert"]["gap"] < 1.8 and gender["likert"]["interval"][0] > 0
    assert culture["gap"] == 0.0 and culture["twin_pass_rate"] == 1.0 and culture["mcnemar_p"] == 1.0


def test_unmatched_twin_items_are_left_out() -> None:
    """A twin's item whose original never ran (or ran on another repeat) is not a pair."""
    library = load_library()
    specs = [s for s in expand_suite(library, "full", repeats=2) if s.scenario_id in SCENARIOS]
    items = [
        _stored(s, "PASS", 5.0)
        for s in specs
        if (_context(library, s) == "michel-mid" and s.repeat == 0)
        or (_context(library, s) == "michelle-mid")
    ]
    gender = build_report(items, library)["counterfactual_bias"]["gender"]
    assert gender["n"] == sum(1 for s in specs if _context(library, s) == "michelle-mid" and s.repeat == 0)
    michel_keys = {s.key for s in specs if _context(library, s) == "michel-mid"}
    twins_only = [i for i in items if i.key not in michel_keys]
    assert twins_only and build_report(twins_only, library)["counterfactual_bias"] == {}
