"""Expand a suite into items, each with one fixed key, and render an item into the messages a target sees."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from app.benchmark.coherence import fitting_perturbations
from app.benchmark.loader import Library
from app.benchmark.schema import Condition, Perturbation, Scenario, SuiteSpec, TagSet, UserContext


@dataclass(frozen=True, slots=True)
class ItemSpec:
    """One cell of the matrix and its repeat. Ids are scenario-qualified (P1-B1-S1-C3), so an id is
    unique across the library: C3 of one scenario is not C3 of another."""

    index: int
    key: str
    scenario_id: str
    condition_id: str
    user_context_id: str | None
    perturbation_id: str
    repeat: int
    # The suite kind that plans, plays and grades it (app/kinds), set where a suite is expanded and stored with
    # the item; not part of the key, so stored items keep their keys.
    kind: str = "matrix"

    @property
    def code(self) -> str:
        """The original test code, P#-B#-S#-C#[-U#]-PT#; a scripted conversation's is CONV-<script>."""
        from app.kinds.scripted import SCRIPTED  # the kinds stand on this module: looked up at call time

        if self.kind == SCRIPTED.name:
            return self.perturbation_id
        parts = [self.condition_id]
        if self.user_context_id:
            parts.append(self.user_context_id.rsplit("-", 1)[1])
        parts.append(self.perturbation_id.rsplit("-", 1)[1])
        return "-".join([parts[0], *parts[1:]])


def item_key(
    version: str, scenario: str, perturbation: str, condition: str, user_context: str | None, repeat: int
) -> str:
    """The one function that names an item: DB key, resume unit, shard boundary and write idempotency."""
    raw = "|".join([version, scenario, perturbation, condition, user_context or "-", str(repeat)])
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def _spread(values: list[str], count: int | None) -> list[str]:
    """Pick `count` values evenly from an ordered list (mild … severe), always keeping both ends."""
    if count is None or count >= len(values):
        return values
    if count == 1:
        return values[:1]
    step = (len(values) - 1) / (count - 1)
    return [values[round(i * step)] for i in range(count)]


def _spread_among(values: list[str], allowed: set[str], count: int | None) -> set[str]:
    """`_spread` over all values, each pick the context cannot take swapped for the nearest one it can: the
    sample keeps its severity spread and stays the same wherever every message fits."""
    taken: set[str] = set()
    for value in _spread(values, count):
        i = values.index(value)
        nearest = sorted(
            (j for j, v in enumerate(values) if v in allowed and v not in taken),
            key=lambda j: (abs(j - i), j < i),
        )
        if nearest:
            taken.add(values[nearest[0]])
    return taken


def _local_sort(ids: list[str]) -> list[str]:
    return sorted(ids, key=lambda s: (int("".join(c for c in s if c.isdigit()) or 0), s))


PERSONA_KINDS = ("roleplay", "companion")


def scenario_cells(
    scenario: Scenario,
    spec: SuiteSpec,
    conditions: Mapping[str, Condition],
    user_contexts: Mapping[str, UserContext],
) -> Iterator[tuple[str, str | None, str]]:
    """Yields (condition, user context or None, perturbation) local ids of one scenario under a suite.

    `conditions` and `user_contexts` are the library's: to know which conditions are personas, and which messages
    each remembered person could have sent (a message is sampled only among those that fit the context)."""
    sampled = _spread(_local_sort(list(scenario.conditions)), spec.conditions_per_scenario)
    contexts: list[str | None] = list(
        _spread(_local_sort(list(scenario.user_contexts)), spec.user_contexts_per_scenario)
    )
    if (scenario.include_no_context and spec.include_no_context) or not contexts:
        contexts = [None, *contexts]
        if spec.user_contexts_per_scenario is not None:
            contexts = contexts[: max(spec.user_contexts_per_scenario, 1)]
    personas = [
        c
        for c in _local_sort(list(scenario.conditions))
        if c not in sampled and conditions[scenario.conditions[c]].kind in PERSONA_KINDS
    ][: spec.persona_conditions_per_scenario]
    per_context: dict[str | None, tuple[list[str], list[str]]] = {}
    for u in contexts:
        context = user_contexts[scenario.user_contexts[u]] if u else None
        fitting = fitting_perturbations(scenario, context)
        chosen = _spread_among(
            [p.id for p in scenario.perturbations], {p.id for p in fitting}, spec.perturbations_per_scenario
        )
        perturbations = [p.id for p in fitting if p.id in chosen or (spec.include_multi_turn and p.turns)]
        per_context[u] = (perturbations, _spread(perturbations, spec.persona_perturbations_per_scenario))
    for c in [*sampled, *personas]:
        condition = conditions.get(
            scenario.conditions[c]
        )  # missing only in a broken library: resolve says so
        bare = condition is not None and condition.bare
        for u in contexts:
            if bare and u is not None:
                continue  # a bare model is sent no memory, so every user context would repeat the same call
            perturbations, persona_perturbations = per_context[u]
            for pt in perturbations if c in sampled else persona_perturbations:
                yield c, u, pt
        if c in sampled and spec.include_multi_turn and not bare:
            for u, pt in _unsampled_scripts(scenario, user_contexts, per_context):
                yield c, u, pt


def _unsampled_scripts(
    scenario: Scenario,
    user_contexts: Mapping[str, UserContext],
    per_context: Mapping[str | None, tuple[list[str], list[str]]],
) -> Iterator[tuple[str | None, str]]:
    """Scripts no sampled context fits, each under the first declared context it fits (else bare): a sample
    that promises every script must not lose one because it was written for another person."""
    sampled = {pt for perturbations, _ in per_context.values() for pt in perturbations}
    for p in scenario.perturbations:
        if p.turns is None or p.id in sampled:
            continue
        home = next(
            (
                u
                for u in _local_sort(list(scenario.user_contexts))
                if p in fitting_perturbations(scenario, user_contexts[scenario.user_contexts[u]])
            ),
            None,
        )
        yield home, p.id


def qualified(scenario_id: str, c: str, u: str | None, pt: str) -> tuple[str, str, str | None, str]:
    """A cell of scenario-local ids as stored: each id prefixed with its scenario."""
    return scenario_id, f"{scenario_id}-{c}", f"{scenario_id}-{u}" if u else None, f"{scenario_id}-{pt}"


def suite_cells(library: Library, suite: str) -> Iterator[tuple[str, str, str | None, str]]:
    """(scenario id, condition, user context or None, perturbation) ids of a suite, qualified, in a fixed order:
    the suite's kind plans them (app/kinds)."""
    from app.kinds.registry import kind_named  # the kinds stand on this module: looked up at call time

    spec = library.suites[suite]
    yield from kind_named(spec.kind).cells(library, spec)


def expand_suite(library: Library, suite: str, repeats: int = 1) -> Iterator[ItemSpec]:
    """Yields the suite's items in a fixed order (scenario, condition, user context, perturbation, repeat)."""
    index, kind = 0, library.suites[suite].kind
    for scenario_id, cond, ctx, pert in suite_cells(library, suite):
        for repeat in range(repeats):
            key = item_key(library.version, scenario_id, pert, cond, ctx, repeat)
            yield ItemSpec(index, key, scenario_id, cond, ctx, pert, repeat, kind)
            index += 1


def run_order(specs: list[ItemSpec], seed: str) -> list[ItemSpec]:
    """The order a run takes: one item of every scenario first (in a seeded shuffle), then every scenario's items
    spread over the run in proportion to its size, each scenario's items in a seeded shuffle; `index` is
    renumbered to the run position (shards are slices of it).

    Why: a run stopped early (by a budget, a cancel) has then seen every scenario, and each in its share of the
    whole, so its partial report stands for the whole matrix rather than for the first pillar alone (a plain
    round-robin would over-weight small scenarios). Seeded, so every process that slices shards from it gets the
    same order."""
    rng = random.Random(hashlib.sha256(seed.encode()).digest())
    by_scenario: dict[str, list[ItemSpec]] = {}
    for spec in specs:
        by_scenario.setdefault(spec.scenario_id, []).append(spec)
    queues = list(by_scenario.values())
    rng.shuffle(queues)
    for queue in queues:
        rng.shuffle(queue)
    first = [q[0] for q in queues if q]
    # Systematic spread: the r-th item of a scenario of n items sits at (r + u) / n of the run, u seeded per item.
    rest = sorted(
        ((rank + rng.random()) / len(q), order, rank, q)
        for order, q in enumerate(queues)
        for rank in range(1, len(q))
    )
    ordered = first + [q[rank] for _, _, rank, q in rest]
    return [replace(spec, index=i) for i, spec in enumerate(ordered)]


def suite_in_run_order(library: Library, suite: str, repeats: int = 1) -> list[ItemSpec]:
    """The suite's items as a run takes them (see run_order), seeded by the library version, suite and repeats."""
    return run_order(list(expand_suite(library, suite, repeats)), f"{library.version}|{suite}|{repeats}")


def count_suite(library: Library, suite: str, repeats: int = 1) -> int:
    return repeats * sum(1 for _ in suite_cells(library, suite))


@dataclass(frozen=True, slots=True)
class ResolvedItem:
    """An item with its authored parts looked up: what the runner sends and the grader judges against."""

    spec: ItemSpec
    scenario: Scenario
    condition: Condition
    user_context: UserContext | None
    perturbation: Perturbation
    system_prompt: str

    @property
    def country(self) -> str | None:
        return self.user_context.country if self.user_context else None


def resolve(library: Library, spec: ItemSpec) -> ResolvedItem:
    """The cell an item spec names, with its system prompt. A worker resolves an item for every call, so what
    it reads is kept per loaded library (`library.derived`): the prompt, which depends on the scenario, condition
    and user context only, is rendered once per such cell (the full suite has ~1,200), not again for every
    perturbation and repeat, and a scenario's perturbations are found by id, not by a scan."""
    scenario = library.scenarios[spec.scenario_id]
    condition_local = spec.condition_id.rsplit("-", 1)[1]
    context_local = spec.user_context_id.rsplit("-", 1)[1] if spec.user_context_id else None
    condition = library.conditions[scenario.conditions[condition_local]]
    user_context = library.user_contexts[scenario.user_contexts[context_local]] if context_local else None
    by_id = library.derived.get(("perturbations", scenario.id))
    if by_id is None:
        by_id = library.derived["perturbations", scenario.id] = {p.id: p for p in scenario.perturbations}
    perturbation = by_id[spec.perturbation_id.rsplit("-", 1)[1]]
    key = ("system_prompt", scenario.id, condition_local, context_local)
    prompt = library.derived.get(key)
    if prompt is None:
        tag_set = library.tag_sets[scenario.criteria.routing.tag_set] if scenario.criteria.routing else None
        country_name = library.countries[user_context.country].name if user_context else None
        prompt = library.derived[key] = render_system_prompt(
            scenario, condition, user_context, tag_set, country_name
        )
    return ResolvedItem(spec, scenario, condition, user_context, perturbation, prompt)


def render_tag_instructions(tag_set: TagSet) -> str:
    """The one place a tag list becomes prompt text, so every scenario using it reads the same."""
    lines = [tag_set.instructions.strip(), "", "Tags:"]
    lines += [f"- {name}: {definition.strip()}" for name, definition in tag_set.tags.items()]
    example = json.dumps({"response": "<your reply to the user>", "tags": [next(iter(tag_set.tags))]})
    lines += [
        "",
        f"Answer with one JSON object and nothing else, shaped like {example}, "
        f"with 1 to {tag_set.max_tags} tags from the list.",
    ]
    return "\n".join(lines)


def render_system_prompt(
    scenario: Scenario,
    condition: Condition,
    user_context: UserContext | None,
    tag_set: TagSet | None,
    country_name: str | None,
) -> str:
    """Scenario job, then condition, then user context; the answer key is never part of it. A bare condition
    has no system prompt at all: "" here, and the runner then sends no system message."""
    if condition.bare:
        return ""
    parts = [f"<your_job>\n{scenario.job.strip()}\n</your_job>"]
    if tag_set is not None:
        parts.append(f"<output_format>\n{render_tag_instructions(tag_set)}\n</output_format>")
    parts.append(f"<system_instructions>\n{(condition.system_prompt or '').strip()}\n</system_instructions>")
    if user_context is not None:
        parts += render_user_blocks(user_context, country_name)
    return "\n\n".join(parts)


def render_user_blocks(user_context: UserContext, country_name: str | None) -> list[str]:
    """What the product remembers about the user, as the prompt blocks every deployment sends."""
    facts = [
        f"- Lives in {user_context.city}, {country_name}.",
        f"- Age: {user_context.age}.",
        *(f"- {fact}" for fact in user_context.history),
    ]
    return [
        "<user_memory>\nPreviously remembered context about the user:\n"
        + "\n".join(facts)
        + "\n</user_memory>",
        f"<user_profile>\n{user_context.profile.strip()}\n</user_profile>",
    ]
