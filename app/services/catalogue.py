"""The benchmark catalogue and its statistics: behind `GET /v1/benchmark` (its body rendered once per library
version) and `data stats`."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from app.benchmark.coherence import fits, incoherent_pairs
from app.benchmark.items import count_suite, scenario_cells
from app.benchmark.loader import Library
from app.benchmark.schema import Perturbation
from app.http.caching import etag_for, json_bytes

LONG_MESSAGE_WORDS = (100, 400)

# library version (a hash of its files) -> the catalogue as JSON and its ETag
_BODIES: dict[str, tuple[bytes, str]] = {}
_RENDERING = threading.Lock()


def _words(p: Perturbation) -> int:
    return sum(len(turn.split()) for turn in p.user_turns)


def _distinct(perturbations: list[Perturbation]) -> list[Perturbation]:
    """One per distinct text: a message reused by a second scenario is still one message a user wrote."""
    seen: dict[tuple[str, ...], Perturbation] = {}
    for p in perturbations:
        seen.setdefault(tuple(p.user_turns), p)
    return list(seen.values())


def _long_messages(perturbations: list[Perturbation]) -> dict[str, Any]:
    """Crisis messages of 100–400 words: the long, rambling disclosures short benchmarks never test."""
    crisis = [p for p in _distinct(perturbations) if p.crisis_category != "no_crisis"]
    low, high = LONG_MESSAGE_WORDS
    count = sum(low <= _words(p) <= high for p in crisis)
    return {"count": count, "share": round(count / len(crisis), 4) if crisis else None, "words": [low, high]}


def _ladder_levels(library: Library) -> int:
    """The most risk levels of one persona a single scenario uses: how finely it can show a reply tracking risk."""
    best = 0
    for s in library.scenarios.values():
        levels: dict[str, set[int]] = {}
        for ref in s.user_contexts.values():
            ctx = library.user_contexts[ref]
            levels.setdefault(ctx.persona, set()).add(ctx.risk_level)
        best = max([best, *(len(v) for v in levels.values())])
    return best


def _incoherent_expanded(library: Library) -> int:
    """Full-suite cells whose message contradicts their user context: the expander's filter, checked again."""
    full = library.suites["full"]
    count = 0
    for s in library.scenarios.values():
        by_id = {p.id: p for p in s.perturbations}
        for _, u, pt in scenario_cells(s, full, library.conditions, library.user_contexts):
            if u is not None and not fits(by_id[pt], library.user_contexts[s.user_contexts[u]]):
                count += 1
    return count


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
        "countries": {
            "count": len(library.countries),
            "with_resources": sorted(library.countries),
            "with_user_contexts": sorted({u.country for u in library.user_contexts.values()}),
        },
        "multi_turn_scripts": sum(p.turns is not None for p in perturbations),
        "conversation_scripts": len(library.conversations),
        "false_positive_scenarios": sum(s.false_positive for s in library.scenarios.values()),
        "items_full": count_suite(library, "full"),
        "items_quick": count_suite(library, "quick"),
        "by_pillar": dict(sorted(by_pillar.items())),
        "by_crisis_category": dict(sorted(Counter(p.crisis_category for p in perturbations).items())),
        "by_language_style": dict(sorted(Counter(st for p in perturbations for st in p.style).items())),
        "messages_by_category": dict(
            sorted(Counter(p.crisis_category for p in _distinct(perturbations)).items())
        ),
        "long_messages": _long_messages(perturbations),
        "ladder_levels": _ladder_levels(library),
        "incoherent_pairs": incoherent_pairs(library) + _incoherent_expanded(library),
        "counterfactual_pairs": dict(
            sorted(Counter(u.varies for u in library.user_contexts.values() if u.varies).items())
        ),
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


def catalogue_body(library: Library) -> tuple[bytes, str]:
    """The catalogue as JSON and its ETag, rendered once per library version (the API's warm-up renders it).

    Why: a render takes a tenth of a second of CPU; rendered again on expiry, a crowd of pollers finding it stale
    at once each rendered it in a thread, and the threads held the interpreter lock from the event loop, so every
    request of the API waited (p99 of 0.1-0.6 s under a run). The library never changes under a version."""
    kept = _BODIES.get(library.version)
    if kept is None:
        with _RENDERING:  # a crowd arriving before the warm-up finished waits for one render
            kept = _BODIES.get(library.version)
            if kept is None:
                body = json_bytes(catalogue(library))
                kept = _BODIES[library.version] = (body, etag_for(body))
    return kept


def kept_catalogue_body(library: Library) -> tuple[bytes, str] | None:
    """The catalogue's body if already rendered: read from memory, no thread, no lock."""
    return _BODIES.get(library.version)
