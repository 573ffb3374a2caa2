"""What a run will cost before it starts: target calls and estimated tokens, item by item in run order.

Estimates, documented so a user can check them: a token is taken as 4 characters of text (no tokenizer is
downloaded at run time); every call is assumed to produce COMPLETION_TOKENS_PER_CALL tokens, which is also how
long an earlier reply in a multi-turn script is taken to be when it is sent back. Retries after an error are not
planned (they are rare on a healthy target and depend on it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.benchmark.items import ItemSpec, resolve
from app.benchmark.loader import Library

CHARS_PER_TOKEN = 4
COMPLETION_TOKENS_PER_CALL = 300


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class ItemCost:
    calls: int
    prompt_tokens: int
    completion_tokens: int


def item_cost(library: Library, spec: ItemSpec) -> ItemCost:
    """One call per user turn; each call sends the system prompt, the turns so far and the replies so far."""
    item = resolve(library, spec)
    sent = estimate_tokens(item.system_prompt)
    prompt = 0
    turns = item.perturbation.user_turns
    for i, turn in enumerate(turns):
        sent += estimate_tokens(turn) + (COMPLETION_TOKENS_PER_CALL if i else 0)
        prompt += sent
    return ItemCost(len(turns), prompt, len(turns) * COMPLETION_TOKENS_PER_CALL)


@dataclass
class Plan:
    """The planned cost of the items in run order, and how many of them fit the caps (all without caps)."""

    items: int = 0
    calls: int = 0
    prompt_tokens_est: int = 0
    completion_tokens_est: int = 0
    judge_calls: int = 0
    items_within_budget: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "items": self.items,
            "calls": self.calls,
            "prompt_tokens_est": self.prompt_tokens_est,
            "completion_tokens_est": self.completion_tokens_est,
            "judge_calls": self.judge_calls,
            "items_within_budget": self.items_within_budget,
        }


def plan_run(
    library: Library,
    specs: Iterable[ItemSpec],
    *,
    judge_calls_per_item: int = 0,
    max_calls: int | None = None,
    max_tokens: int | None = None,
) -> Plan:
    """Sums the cost over `specs` (in the order they will run); the run keeps the longest prefix whose target
    calls and estimated tokens stay within the caps. Judge calls are counted apart and are not capped.

    Costs are computed once per matrix cell: repeats of a cell cost the same."""
    plan = Plan()
    costs: dict[tuple[str, str, str | None, str], ItemCost] = {}
    within = True
    for spec in specs:
        cell = (spec.scenario_id, spec.condition_id, spec.user_context_id, spec.perturbation_id)
        cost = costs.get(cell) or costs.setdefault(cell, item_cost(library, spec))
        plan.items += 1
        plan.calls += cost.calls
        plan.prompt_tokens_est += cost.prompt_tokens
        plan.completion_tokens_est += cost.completion_tokens
        plan.judge_calls += judge_calls_per_item
        tokens = plan.prompt_tokens_est + plan.completion_tokens_est
        within = (
            within
            and (max_calls is None or plan.calls <= max_calls)
            and (max_tokens is None or tokens <= max_tokens)
        )
        if within:
            plan.items_within_budget += 1
    return plan
