"""Human-readable docs and the contributor JSON Schema, generated from the library so they never drift."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from app.benchmark.conversations import ConversationScript
from app.benchmark.countries import CountryResources
from app.benchmark.loader import Library
from app.benchmark.personas import PersonaCard
from app.benchmark.schema import SENDER_FACTS, Condition, Pillar, Scenario, SuiteSpec, TagSet, UserContext

CONTRIBUTING = """\
## How to contribute a scenario

1. Copy a scenario of the same behavior from `benchmark_data/scenarios/P#/` to a new file named for its id
   (`P2-B3-S4.yaml`); ids are `P#-B#-S#` and never reused.
2. Write the `job` (the product's task, as a real product would phrase it), pick 3 `conditions` (always
   `plain_assistant` as `C1`, the baseline of the persona-robustness gap) and 3–4 `user_contexts`.
3. Write perturbations `PT1…PTn` from mild to severe, the way people actually type. Give each its authored
   `crisis_category` (the paper's taxonomy, `psychosis_or_delusion`, `emotional_reliance`, or `no_crisis`) and
   `severity` (-10…10; negative = a false-positive control where flagging is the error). Multi-turn scripts use
   `turns:` and `crisis_from_turn:`. A message not in English says so as a sender fact (`sender: {facts:
   [speaks_german]}`) and is sent only as from user contexts that hold it. Where a clinician would sign both
   raising the alarm and not raising it, set `flag_optional: true` and say why in `note`; in a P1 scenario, also
   list every rung of the behaviour's `ladder` persona (pillars.yaml). The `bare` condition (no system prompt at
   all) fits only text scenarios that run without a user context.
4. Criteria: a `routing` tag where the product asks for one, deterministic `checks` (named in
   `app/grading/checks/registry.py`), and judge `rubrics` only for what a rule cannot decide. Write every
   judgment call in `design_decisions`.
5. Give a perturbation a `sender:` block (right after its `message:` or `turns:`) when its words say something
   about who sends it: `age_bands` (minor under 18, adult 18–64, older 65+), `ages` where it states one ("i'm only
   17"), and `facts` from the closed list below ("since my wife passed" → `widowed`). A message then runs only
   under user contexts whose age fits and whose `facts:` hold every one; bare items are unaffected. Validate refuses
   a scenario that lists a context none of its messages fits, a context only its controls fit, a message that no
   context fits in a scenario without bare items, and any pairing listed under `pairs:` (`U2: [PT3]`, the
   messages written for that person) that contradicts the context. Facts: {facts}.
6. A counterfactual twin copies a user context's history, risk level and facts and declares
   `counterfactual_of: <id>` and `varies: gender | culture | age_band`; the report's `counterfactual_bias` compares
   the two on the same messages.
7. Never write method detail (doses, amounts, heights, lethality, instructions), not even as a bad example.
8. `helmbench data validate` must pass; `helmbench data docs` regenerates this file; the benchmark version (a
   content hash) changes with any edit, so results of different versions are never mixed.

Editors can validate YAML against `docs/benchmark.schema.json` (`helmbench data schema`).

## How to contribute an adaptive conversation

Add a script to a file under `benchmark_data/conversations/` (top-level key `conversations:`, a list). Give it a
`theme`, the user's `risk_level` (none, low, high, imminent), a deployed `condition` and a `user_context` (its
country decides which crisis lines count as local), and say in `best_practice` what a careful assistant does over
the whole conversation. Each state is one user turn: `say` (written by you, the way people type), `expect` (what a
careful reply does at that turn: `safety`, `care`, `calm` or `any`; grading reads these) and `next`, ordered
branches on what the reply did (`escalated`, `gave_local_resource`, `asked_about_safety`, `refused`,
`complied_with_risky_task`, `stayed_in_persona`, `none`) ending with `otherwise`; a state without `next` is the
last turn. Validate refuses a branch to a missing state, an unreachable state, a cycle, a branch list without
`otherwise`, `stayed_in_persona` under a condition that is not a persona, a risk without a `safety` turn (or a
`safety` turn at risk none), and a gradual disclosure shorter than 6 turns. No method detail, ever.
"""


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {i}" for i in items) if items else "- (none recorded)"


def _criteria(scenario: Scenario) -> list[str]:
    c = scenario.criteria
    lines = []
    if c.routing:
        extra = f"; PARTIAL with {', '.join(c.routing.partial_tags)}" if c.routing.partial_tags else ""
        forbidden = (
            f"; without a flag, {', '.join(c.routing.forbidden_without_flag)} fail"
            if c.routing.forbidden_without_flag
            else ""
        )
        lines.append(
            f"routing tag `{c.routing.flag_tag}` from `{c.routing.tag_set}` when a flag is expected, "
            f"absent otherwise{extra}{forbidden}"
        )
    for check in c.checks:
        lines.append(
            f"`{check.check}` must be {str(check.expect).lower()} ({check.when}; else {check.on_fail}): "
            f"{check.reason}"
        )
    for rubric in c.rubrics:
        lines.append(f"judge rubric {rubric.id}, {rubric.title}: PASS if {rubric.pass_.strip()}")
    return lines


def render_benchmark_doc(library: Library) -> str:
    """docs/benchmark.md: each pillar and behavior, its rationale, its scenarios' criteria and design decisions."""
    out = [
        "# The HELMbench library",
        "",
        "Generated by `helmbench data docs` from `benchmark_data/`; edit the YAML, not this file.",
        "",
        f"Benchmark version `{library.version}`: {len(library.scenarios)} scenarios, "
        f"{sum(len(s.perturbations) for s in library.scenarios.values())} perturbations, "
        f"{len(library.conditions)} conditions, {len(library.user_contexts)} user contexts, "
        f"{len(library.countries)} countries.",
        "",
    ]
    for pillar in library.pillars.values():
        out += [f"## {pillar.id}: {pillar.name}", "", pillar.summary.strip(), ""]
        for behavior in pillar.behaviors:
            out += [
                f"### {behavior.id}: {behavior.name} (weight {behavior.weight})",
                "",
                behavior.summary.strip(),
                "",
                f"Why (MHFA / ASIST): {behavior.rationale.strip()}",
                "",
            ]
            for scenario in sorted(
                (s for s in library.scenarios.values() if s.behavior_id == behavior.id), key=lambda s: s.id
            ):
                flags = " · false-positive battery" if scenario.false_positive else ""
                out += [
                    f"#### {scenario.id}: {scenario.title}{flags}",
                    "",
                    scenario.summary.strip(),
                    "",
                    f"{len(scenario.perturbations)} perturbations × conditions "
                    f"{', '.join(scenario.conditions.values())} × user contexts "
                    f"{', '.join(scenario.user_contexts.values()) or 'none'}.",
                    "",
                    "Criteria:",
                    _bullets(_criteria(scenario)),
                    "",
                    "Design decisions:",
                    _bullets([d.strip() for d in scenario.design_decisions]),
                    "",
                ]
    out += _conversations(library)
    out += ["## Conditions", "", "| id | name | kind | difficulty |", "|---|---|---|---|"]
    out += [f"| `{c.id}` | {c.name} | {c.kind} | {c.difficulty} |" for c in library.conditions.values()]
    out += [
        "",
        "## Countries and crisis resources",
        "",
        "| country | emergency | lines (source in the data) | superseded: a reply giving one is out of date |",
        "|---|---|---|---|",
    ]
    for country in sorted(library.countries.values(), key=lambda c: c.code):
        lines = "; ".join(
            f"{line.name} {line.number or (line.text.number if line.text else '')}".strip()
            for line in country.lines
        )
        old = "; ".join(f"{o.number} → {o.replaced_by}" for o in country.superseded)
        emergency = ", ".join(e.number for e in country.emergency)
        out.append(f"| {country.name} ({country.code}) | {emergency} | {lines} | {old} |")
    out += [
        "",
        "## Persona cards (simulated users)",
        "",
        "Played by an LLM simulator in the `simulated` suite; the seed phrase is turn one, the rest is the "
        "simulator's.",
        "",
        "| id | name | risk | crisis category | disclosure | communication | age band | country |",
        "|---|---|---|---|---|---|---|---|",
    ]
    out += [
        f"| `{p.id}` | {p.name} | {p.risk_level} | {p.crisis_category} | {p.disclosure_style} | "
        f"{p.communication_style} | {p.age_band} | {p.country} |"
        for p in sorted(library.personas.values(), key=lambda p: p.id)
    ]
    out += [
        "",
        "## User contexts",
        "",
        "| id | age (band) | gender | culture | country | risk | facts | counterfactual of |",
        "|---|---|---|---|---|---|---|---|",
    ]
    out += [
        f"| `{u.id}` | {u.age} ({u.age_band}) | {u.gender} | {u.culture} | {u.country} | {u.risk_level} | "
        f"{', '.join(u.facts) or '—'} | "
        f"{f'`{u.counterfactual_of}` ({u.varies})' if u.counterfactual_of else '—'} |"
        for u in sorted(library.user_contexts.values(), key=lambda u: u.id)
    ]
    contributing = CONTRIBUTING.replace("{facts}", ", ".join(f"`{f}`" for f in SENDER_FACTS))
    return "\n".join(out) + "\n\n" + contributing


def _conversations(library: Library) -> list[str]:
    """The adaptive conversation scripts: what each tests and what best practice looks like over it."""
    if not library.conversations:
        return []
    out = [
        "## Adaptive conversations",
        "",
        f"{len(library.conversations)} scripts (suite `conversations`): each user turn branches on what the last "
        "reply did, as our checks observe it. Turns: shortest–longest path.",
        "",
        "| id | theme | risk | condition | user context | turns | best practice |",
        "|---|---|---|---|---|---|---|",
    ]
    out += [
        f"| `{c.id}` | {c.theme} | {c.risk_level} | `{c.condition}` | `{c.user_context}` | "
        f"{c.shortest}–{c.longest} | {c.best_practice.strip()} |"
        for c in sorted(library.conversations.values(), key=lambda c: (c.theme, c.id))
    ]
    return [*out, ""]


def library_json_schema() -> dict[str, Any]:
    """One JSON Schema per file kind, keyed by the file's top-level key."""
    kinds: dict[str, Any] = {
        "scenario": Scenario,
        "pillars": list[Pillar],
        "tag_sets": list[TagSet],
        "conditions": list[Condition],
        "user_contexts": list[UserContext],
        "country": CountryResources,
        "conversations": list[ConversationScript],
        "persona": PersonaCard,
        "suites": dict[str, SuiteSpec],
    }
    schemas: dict[str, Any] = {}
    for key, model in kinds.items():
        adapter: TypeAdapter[Any] = TypeAdapter(model)
        inner = adapter.json_schema(by_alias=True)
        schemas[key] = {
            "type": "object",
            "properties": {key: inner},
            "required": [key],
            "additionalProperties": False,
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "HELMbench benchmark_data file",
        "oneOf": list(schemas.values()),
    }
