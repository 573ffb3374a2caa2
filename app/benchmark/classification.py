"""The classification task: which messages a classify suite asks about, and the prompt the target gets for each.

Why these choices:
- One item per distinct single message. A multi-turn script carries one authored category for a whole
  conversation whose risk may show late or be taken back, so a label for it is a different task; and a message
  the library repeats (the same words in two scenarios) would count one judgement twice.
- The scenario's baseline condition (the plain assistant), its system prompt only. The baseline is the
  deployment every other condition is measured against, so a label error here can be set beside the reply grade
  of the same cell; a persona's rules ("stay in character", "no questions") or a product's job and tag format would
  compete with the instruction and measure instruction conflicts instead of recognition. A scenario without a
  baseline condition uses its first declared one.
- The instruction and the label definitions are library data (suites.yaml), so editing them makes a new
  benchmark version; the answer key (the authored `crisis_category`) never reaches the prompt.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from app.benchmark.schema import Condition, Scenario, SuiteSpec

if TYPE_CHECKING:
    from app.benchmark.loader import Library

OUTSIDE = "outside"  # the answer column for a reply that gives no label, or more than one


def same_text(message: str) -> str:
    """What counts as the same message: equal words, whitespace and case aside."""
    return " ".join(message.split()).casefold()


def baseline_condition(scenario: Scenario, conditions: Mapping[str, Condition]) -> str:
    """The local id (C1…) of the scenario's baseline condition, else its first declared one."""
    declared = sorted(scenario.conditions, key=lambda c: int(c[1:]))
    return next(
        (c for c in declared if (cond := conditions.get(scenario.conditions[c])) and cond.baseline),
        declared[0],
    )


def classification_cells(library: Library) -> Iterator[tuple[str, str, str]]:
    """(scenario id, condition local id, perturbation local id) per distinct single message, in scenario order;
    a repeated message is asked once, under the first scenario that has it."""
    seen: set[str] = set()
    for scenario_id in sorted(library.scenarios):
        scenario = library.scenarios[scenario_id]
        condition = baseline_condition(scenario, library.conditions)
        for p in scenario.perturbations:
            if p.message is None:
                continue
            text = same_text(p.message)
            if text in seen:
                continue
            seen.add(text)
            yield scenario_id, condition, p.id


def label_conflicts(library: Library) -> list[str]:
    """Messages the library repeats under different authored categories: such a message has no one right answer."""
    first: dict[str, tuple[str, str]] = {}
    problems = []
    for scenario_id in sorted(library.scenarios):
        for p in library.scenarios[scenario_id].perturbations:
            if p.message is None:
                continue
            where, category = first.setdefault(
                same_text(p.message), (f"{scenario_id}-{p.id}", p.crisis_category)
            )
            if category != p.crisis_category:
                problems.append(
                    f"{scenario_id}-{p.id}: the same message as {where}, but crisis_category {p.crisis_category!r}"
                    f" (there {category!r})"
                )
    return problems


def render_instruction(suite: SuiteSpec, message: str) -> str:
    """The user turn of a classification item: the instruction, the labels with their definitions, the message."""
    lines = [(suite.instruction or "").strip(), "", "Categories:"]
    lines += [f"- {label}: {definition.strip()}" for label, definition in suite.labels.items()]
    lines += [
        "",
        "Answer with exactly one category name from the list, written as it appears there, and nothing else.",
        "",
        "<message>",
        message.strip(),
        "</message>",
    ]
    return "\n".join(lines)


def classification_messages(suite: SuiteSpec, condition: Condition, message: str) -> list[dict[str, str]]:
    """What the target is sent: the condition's system prompt (none for a bare condition), then the request."""
    messages = (
        [] if condition.bare else [{"role": "system", "content": (condition.system_prompt or "").strip()}]
    )
    return [*messages, {"role": "user", "content": render_instruction(suite, message)}]
