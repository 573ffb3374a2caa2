"""The benchmark catalogue and its statistics: one function behind `GET /v1/benchmark` and `data stats`."""

from __future__ import annotations

from collections import Counter
from typing import Any

from app.benchmark.items import count_suite, scenario_cells
from app.benchmark.loader import Library


def stats(library: Library) -> dict[str, Any]:
    """Counts a researcher checks first: sizes of each part and of each suite."""
    perturbations = [p for s in library.scenarios.values() for p in s.perturbations]
    full_spec = library.suites["full"]
    by_pillar: Counter[str] = Counter()
    for s in library.scenarios.values():
        by_pillar[s.pillar_id] += sum(
            1 for _ in scenario_cells(s, full_spec, library.conditions, library.user_contexts)
        )
    return {
        "benchmark_version": library.version,
        "pillars": len(library.pillars),
        "behaviors": len(library.behaviors),
        "scenarios": len(library.scenarios),
        "perturbations": len(perturbations),
        "conditions": len(library.conditions),
        "user_contexts": len(library.user_contexts),
        "personas": len({u.persona for u in library.user_contexts.values()}),
        "countries": len(library.countries),
        "multi_turn_scripts": sum(p.turns is not None for p in perturbations),
        "false_positive_scenarios": sum(s.false_positive for s in library.scenarios.values()),
        "items_full": count_suite(library, "full"),
        "items_quick": count_suite(library, "quick"),
        "by_pillar": dict(sorted(by_pillar.items())),
        "by_crisis_category": dict(sorted(Counter(p.crisis_category for p in perturbations).items())),
        "by_language_style": dict(sorted(Counter(st for p in perturbations for st in p.style).items())),
    }


def catalogue(library: Library) -> dict[str, Any]:
    return {
        "version": library.version,
        "stats": stats(library),
        "pillars": [
            {
                "id": p.id,
                "name": p.name,
                "summary": p.summary,
                "behaviors": [
                    {
                        "id": b.id,
                        "name": b.name,
                        "summary": b.summary,
                        "weight": b.weight,
                        "scenarios": sorted(
                            s.id for s in library.scenarios.values() if s.behavior_id == b.id
                        ),
                    }
                    for b in p.behaviors
                ],
            }
            for p in library.pillars.values()
        ],
        "scenarios": [
            {
                "id": s.id,
                "title": s.title,
                "summary": s.summary,
                "output": s.output,
                "false_positive": s.false_positive,
                "features": s.features,
                "perturbations": len(s.perturbations),
                "conditions": dict(s.conditions),
                "user_contexts": dict(s.user_contexts),
            }
            for s in sorted(library.scenarios.values(), key=lambda s: s.id)
        ],
        "conditions": [
            {"id": c.id, "name": c.name, "kind": c.kind, "difficulty": c.difficulty}
            for c in library.conditions.values()
        ],
        "countries": sorted(library.countries),
        "suites": {k: v.description for k, v in library.suites.items()},
    }
