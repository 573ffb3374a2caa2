"""Whether a message could have been sent by a remembered person: one fit function for expander, validate and stats.

A message that says "since my wife passed" sent under the memory of a 16-year-old is a contradiction a careful
model would notice, and a benchmark must not punish noticing. So the expander pairs a message only with user
contexts that fit its `sender`, and validate refuses a library whose scenario still relies on a pairing that
cannot happen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from app.benchmark.schema import Perturbation, Scenario, UserContext

if TYPE_CHECKING:
    from app.benchmark.loader import Library


def fits(perturbation: Perturbation, context: UserContext | None) -> bool:
    """True when the context's age band is one the words allow and it holds every fact the words assert.

    A bare item (no context) always fits: nothing remembered can contradict the message."""
    sender = perturbation.sender
    if context is None or sender is None:
        return True
    if sender.age_bands is not None and context.age_band not in sender.age_bands:
        return False
    if sender.ages is not None and context.age not in sender.ages:
        return False
    return set(sender.facts) <= set(context.facts)


def misfit_reason(perturbation: Perturbation, context: UserContext) -> str:
    """Why a pairing does not fit, for an error message a contributor can act on."""
    sender = perturbation.sender
    assert sender is not None
    if sender.age_bands is not None and context.age_band not in sender.age_bands:
        return (
            f"the message fits age bands {', '.join(sender.age_bands)} but {context.id} is {context.age} "
            f"({context.age_band})"
        )
    if sender.ages is not None and context.age not in sender.ages:
        return f"the message states an age of {', '.join(map(str, sender.ages))} but {context.id} is {context.age}"
    missing = sorted(set(sender.facts) - set(context.facts))
    return f"the message asserts {', '.join(missing)}, which {context.id}'s facts do not hold"


def fitting_perturbations(scenario: Scenario, context: UserContext | None) -> list[Perturbation]:
    return [p for p in scenario.perturbations if fits(p, context)]


def declared_pairs(
    scenario: Scenario, contexts: Mapping[str, UserContext]
) -> Iterator[tuple[str, UserContext, Perturbation]]:
    """The pairings a scenario's author wrote down in `pairs:` (local context id, context, perturbation)."""
    by_id = {p.id: p for p in scenario.perturbations}
    for local, pts in scenario.pairs.items():
        context = contexts[scenario.user_contexts[local]]
        for pt in pts:
            yield local, context, by_id[pt]


def incoherent_pairs(library: Library) -> int:
    """Declared pairings whose message contradicts the context; must be 0 in a valid library."""
    return sum(
        not fits(p, ctx)
        for s in library.scenarios.values()
        for _, ctx, p in declared_pairs(s, library.user_contexts)
    )


def coherence_problems(library: Library) -> Iterator[str]:
    """Each way a scenario relies on a pairing that cannot happen, naming the scenario and user-context files."""
    for scenario in library.scenarios.values():
        where = library.sources[f"scenarios:{scenario.id}"]
        for local, ref in scenario.user_contexts.items():
            context = library.user_contexts[ref]
            ctx_file = library.sources[f"user_contexts:{ref}"]
            fitting = fitting_perturbations(scenario, context)
            if not fitting:
                reasons = "; ".join(
                    f"{p.id}: {misfit_reason(p, context)}" for p in scenario.perturbations[:3]
                )
                yield (
                    f"{where}: scenario.user_contexts.{local}: no message of {scenario.id} fits user context "
                    f"{ref} ({ctx_file}): {reasons}"
                )
                continue
            if any(p.flag_expected for p in scenario.perturbations) and not any(
                p.flag_expected for p in fitting
            ):
                yield (
                    f"{where}: scenario.user_contexts.{local}: none of {scenario.id}'s crisis messages fits "
                    f"user context {ref} ({ctx_file}), so under it the scenario tests only the controls"
                )
        if not scenario.include_no_context:
            contexts = [library.user_contexts[ref] for ref in scenario.user_contexts.values()]
            for p in scenario.perturbations:
                if not any(fits(p, ctx) for ctx in contexts):
                    yield (
                        f"{where}: scenario.perturbations.{p.id}: fits none of the scenario's user contexts and "
                        "the scenario runs no bare items, so the message never runs; add a context it fits"
                    )
        for local, context, perturbation in declared_pairs(scenario, library.user_contexts):
            if not fits(perturbation, context):
                yield (
                    f"{where}: scenario.pairs.{local}: {perturbation.id} contradicts user context {context.id} "
                    f"({library.sources[f'user_contexts:{context.id}']}): {misfit_reason(perturbation, context)}"
                )


_PRONOUNS = re.compile(r"\b(he|she|his|her|hers|him|himself|herself)\b", re.IGNORECASE)
_LANGUAGE_FACTS = re.compile(r"^(speaks_\w+|writes_in_second_language)$")


def _as_copied(ctx: UserContext, varies: str) -> tuple[list[str], list[str], int]:
    """History, facts and risk as a twin must copy them: a gender twin's pronouns follow its gender and a culture
    twin may speak other languages; everything else word for word."""
    history = [_PRONOUNS.sub("_", h) for h in ctx.history] if varies == "gender" else list(ctx.history)
    facts = sorted(f for f in ctx.facts if varies != "culture" or not _LANGUAGE_FACTS.match(f))
    return history, facts, ctx.risk_level


_HELD_EQUAL = {
    "gender": ("culture", "age_band"),
    "culture": ("gender", "age_band"),
    "age_band": ("gender", "culture"),
}


def counterfactual_problems(library: Library) -> Iterator[str]:
    """A counterfactual twin must share its original's history, risk and facts and differ in exactly one attribute,
    or a gap between them measures more than the attribute it claims to."""
    for ctx in library.user_contexts.values():
        if ctx.counterfactual_of is None or ctx.varies is None:
            continue
        where = f"{library.sources[f'user_contexts:{ctx.id}']}: user_contexts.{ctx.id}"
        original = library.user_contexts.get(ctx.counterfactual_of)
        if original is None:
            yield f"{where}.counterfactual_of: unknown user context {ctx.counterfactual_of!r}"
            continue
        if original.counterfactual_of is not None:
            yield f"{where}.counterfactual_of: {original.id} is itself a counterfactual; point at the original"
        same = _as_copied(ctx, ctx.varies) == _as_copied(original, ctx.varies)
        if not same:
            yield f"{where}: a counterfactual keeps {original.id}'s history, risk_level and facts word for word"
        if getattr(ctx, ctx.varies) == getattr(original, ctx.varies):
            yield f"{where}.varies: {ctx.varies} is the same as {original.id}'s"
        for attr in _HELD_EQUAL[ctx.varies]:
            if getattr(ctx, attr) != getattr(original, attr):
                yield f"{where}: varies {ctx.varies} but {attr} differs from {original.id}'s too"
