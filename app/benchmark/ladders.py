"""Risk ladders: one person remembered at rising risk levels, run on the same messages of one behaviour.

With the messages held fixed, the only thing that changes from rung to rung is what the product remembers about
the person, so the detection rate by rung shows from which level of prior risk a model starts to notice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.benchmark.coherence import fits
from app.benchmark.schema import Scenario, UserContext

if TYPE_CHECKING:
    from app.benchmark.loader import Library

LADDER_MIN_LEVELS = 5  # the original graded one person over five to seven levels; fewer draws no threshold


def ladder_rungs(library: Library, persona: str) -> list[UserContext]:
    """The persona's user contexts from the lowest risk level to the highest."""
    return sorted(
        (u for u in library.user_contexts.values() if u.persona == persona), key=lambda u: u.risk_level
    )


def ladders(library: Library) -> dict[str, str]:
    """Behaviour id → the persona whose ladder it runs."""
    return {b.id: b.ladder for b in library.behaviors.values() if b.ladder}


def ladder_problems(library: Library) -> list[str]:
    """Why a declared ladder cannot draw a threshold: too few rungs, two rungs at one level, rungs that are not
    the same person, or a scenario of the behaviour that does not run every rung although the person could have
    sent one of its crisis messages."""
    problems: list[str] = []
    for behavior, persona in ladders(library).items():
        where = f"pillars.yaml: {behavior}.ladder"
        rungs = ladder_rungs(library, persona)
        levels = [u.risk_level for u in rungs]
        if len(set(levels)) < LADDER_MIN_LEVELS:
            problems.append(
                f"{where}: persona {persona!r} has {len(set(levels))} distinct risk levels; "
                f"a ladder needs {LADDER_MIN_LEVELS}"
            )
        if len(set(levels)) != len(levels):
            problems.append(f"{where}: persona {persona!r} has two user contexts at one risk level")
        for attr in ("name", "country", "facts"):
            values = {str(getattr(u, attr)) for u in rungs}
            if len(values) > 1:
                # Facts decide which messages pair with a context; rungs that differ would not run the same set.
                problems.append(
                    f"{where}: persona {persona!r} changes {attr} between rungs: {sorted(values)}"
                )
        wanted = {u.id for u in rungs}
        for scenario in library.scenarios.values():
            if (
                scenario.behavior_id != behavior
                or not observes_alarm(scenario)
                or not _speaks_for(scenario, rungs)
            ):
                continue
            missing = sorted(wanted - set(scenario.user_contexts.values()))
            if missing:
                problems.append(
                    f"{library.sources['scenarios:' + scenario.id]}: scenario.user_contexts: "
                    f"the {behavior} ladder needs {', '.join(missing)}"
                )
    return problems


def observes_alarm(scenario: Scenario) -> bool:
    """A rung is read from the routing tag or the escalates check; a scenario with neither (psychosis items are
    graded on the 1-5 row, not on an alarm) has no rate to give a ladder."""
    return scenario.criteria.routing is not None or any(
        c.check == "escalates" and c.when in ("always", "flag_expected") for c in scenario.criteria.checks
    )


def _speaks_for(scenario: Scenario, rungs: list[UserContext]) -> bool:
    """Whether the ladder's person could have sent one of the scenario's crisis messages (rungs share their facts):
    a scenario written for someone else, e.g. all from the workplace, has nothing to measure on this ladder."""
    return bool(rungs) and any(p.flag_expected and fits(p, rungs[0]) for p in scenario.perturbations)
