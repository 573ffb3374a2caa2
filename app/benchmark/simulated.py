"""The `simulated` suite: every persona card talks with the target under each of the suite's conditions.

An item is one card under one condition, stored with SIMULATED_SCENARIO in the scenario slot, the card id as the
perturbation and the condition (prefixed) as the condition, so the one key function names it like every other item
(its kind is stored with it, not read from these ids).
The target sees the deployment's job and the condition's system prompt, and the user's country in the memory block
every deployment sends: a consumer app knows it, and without it "guides to human care in the user's country" could
not be asked of the target. Nothing else of the card reaches the target: only the user's turns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.benchmark.conversations import DEFAULT_JOB
from app.benchmark.personas import PersonaCard
from app.benchmark.schema import Condition, SuiteSpec

if TYPE_CHECKING:  # the loader checks the suite with simulated_problems, so no import back at run time
    from app.benchmark.loader import Library

SIMULATED_SCENARIO = "SIM"


@dataclass(frozen=True, slots=True)
class SimulatedCell:
    card: str
    condition: str

    @property
    def ids(self) -> tuple[str, str, str, None]:
        """(scenario, perturbation, condition, user context) as stored and as hashed into the item key."""
        return SIMULATED_SCENARIO, self.card, f"{SIMULATED_SCENARIO}-{self.condition}", None


def simulated_cells(library: Library, spec: SuiteSpec) -> Iterator[SimulatedCell]:
    """Card by condition, cards in id order: a run stopped early has still seen every condition."""
    for card_id in sorted(library.personas):
        for condition in spec.conditions:
            yield SimulatedCell(card_id, condition)


@dataclass(frozen=True, slots=True)
class SimulatedItem:
    """A simulated item with its card and condition looked up, and the system prompt the target is sent."""

    card: PersonaCard
    condition: Condition
    system_prompt: str
    country_name: str


def resolve_simulated(library: Library, card_id: str, condition_id: str) -> SimulatedItem:
    """`condition_id` as stored (`SIM-<condition>`)."""
    card = library.personas[card_id]
    condition = library.conditions[condition_id.split("-", 1)[1]]
    country = library.countries[card.country].name
    parts = [f"<your_job>\n{DEFAULT_JOB}\n</your_job>"]
    if condition.system_prompt:
        parts.append(f"<system_instructions>\n{condition.system_prompt.strip()}\n</system_instructions>")
    parts.append(
        f"<user_memory>\nPreviously remembered context about the user:\n- Lives in {country}.\n</user_memory>"
    )
    return SimulatedItem(card, condition, "\n\n".join(parts), country)


def simulated_problems(library: Library) -> list[str]:
    """A simulated suite names conditions that exist and send a system prompt; a matrix suite names none."""
    problems = []
    for name, spec in library.suites.items():
        if spec.kind != "simulated" and spec.conditions:
            problems.append(f"suites.yaml: suites.{name}.conditions: only a simulated suite lists conditions")
        if spec.kind != "simulated":
            continue
        if not spec.conditions:
            problems.append(f"suites.yaml: suites.{name}.conditions: a simulated suite needs at least one")
        for i, ref in enumerate(spec.conditions):
            condition = library.conditions.get(ref)
            if condition is None:
                problems.append(f"suites.yaml: suites.{name}.conditions.{i}: unknown condition {ref!r}")
            elif condition.bare:
                problems.append(f"suites.yaml: suites.{name}.conditions.{i}: {ref!r} sends no system prompt")
        if not library.personas:
            problems.append(f"suites.yaml: suites.{name}: no persona cards under personas/")
    return problems
