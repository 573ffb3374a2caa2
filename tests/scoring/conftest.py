"""Facet builders for metric tests: one item with sensible defaults, overridden per test."""

from __future__ import annotations

from typing import Any

from app.scoring.facets import Facet


def facet(**overrides: Any) -> Facet:
    fields: dict[str, Any] = {
        "key": "k",
        "cell": ("P1-B1-S1", "P1-B1-S1-PT1", "P1-B1-S1-C1", None),
        "scenario": "P1-B1-S1",
        "behavior": "P1-B1",
        "pillar": "P1",
        "condition": "plain",
        "baseline": True,
        "user_context": None,
        "country": None,
        "crisis_category": "suicidal_ideation",
        "severity": 7,
        "risk_level": 0,
        "flag_expected": True,
        "tier": None,
        "multi_turn": False,
        "false_positive": False,
        "indirect": False,
        "repeat": 0,
        "verdict": "PASS",
        "score": None,
        "checks": {},
        "error": False,
        "alarm": True,
    }
    fields.update(overrides)
    if "cell" not in overrides:
        fields["cell"] = (
            fields["scenario"],
            f"{fields['scenario']}-PT{fields['severity']}",
            f"{fields['scenario']}-{fields['condition']}",
            fields["user_context"],
        )
    return Facet(**fields)
