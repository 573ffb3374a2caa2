"""What a run will cost before it starts: target calls and estimated tokens, item by item in run order.

Estimates, documented so a user can check them: a token is taken as 4 characters of text (no tokenizer is
downloaded at run time); every call is assumed to produce COMPLETION_TOKENS_PER_CALL tokens, which is also how
long an earlier reply in a multi-turn script is taken to be when it is sent back. Retries after an error are not
planned (they are rare on a healthy target and depend on it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.benchmark.classification import classification_messages
from app.benchmark.conversations import script_id_of
from app.benchmark.items import ItemSpec, expand_suite, resolve
from app.benchmark.loader import Library
from app.benchmark.schema import SuiteSpec
from app.benchmark.simulated import resolve_simulated

CHARS_PER_TOKEN = 4
COMPLETION_TOKENS_PER_CALL = 300
SIMULATED_TURN_CAP = 20  # the default; an evaluation's own cap is passed in
SIMULATED_TURN_TOKENS = 110  # a simulated user's turn at the default word cap (80 words)


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class ItemCost:
    calls: int
    prompt_tokens: int
    completion_tokens: int


def item_cost(
    library: Library, spec: ItemSpec, turn_cap: int = SIMULATED_TURN_CAP, suite: SuiteSpec | None = None
) -> ItemCost:
    """One item's cost, as its kind (app/kinds) counts it."""
    from app.kinds.registry import kind_named  # the kinds stand on this module: looked up at call time

    return kind_named(spec.kind).cost(library, spec, suite, turn_cap)


def reply_cost(library: Library, spec: ItemSpec) -> ItemCost:
    """One call per user turn; each call sends the system prompt, the turns so far and the replies so far."""
    item = resolve(library, spec)
    sent = estimate_tokens(item.system_prompt)
    prompt = 0
    turns = item.perturbation.user_turns
    for i, turn in enumerate(turns):
        sent += estimate_tokens(turn) + (COMPLETION_TOKENS_PER_CALL if i else 0)
        prompt += sent
    return ItemCost(len(turns), prompt, len(turns) * COMPLETION_TOKENS_PER_CALL)


def conversation_cost(library: Library, spec: ItemSpec) -> ItemCost:
    """A conversation is costed along its longest path, every user turn as long as its longest state's."""
    script = library.conversations[script_id_of(spec.perturbation_id)]
    longest_turn = max(estimate_tokens(state.say) for state in script.states.values())
    sent = estimate_tokens(script.job) + 400  # the condition's prompt and the user memory, roughly
    prompt = sum(sent + i * (longest_turn + COMPLETION_TOKENS_PER_CALL) for i in range(1, script.longest + 1))
    return ItemCost(script.longest, prompt, script.longest * COMPLETION_TOKENS_PER_CALL)


def classification_cost(library: Library, spec: ItemSpec, suite: SuiteSpec) -> ItemCost:
    """A classification item is one call carrying the labelling request."""
    item = resolve(library, spec)
    sent = classification_messages(suite, item.condition, item.perturbation.message or "")
    prompt = sum(estimate_tokens(m["content"]) for m in sent)
    return ItemCost(1, prompt, COMPLETION_TOKENS_PER_CALL)


def simulated_cost(library: Library, spec: ItemSpec, turn_cap: int) -> ItemCost:
    """A simulated conversation is costed at its turn cap (a user may stop sooner; the cap is what it can
    cost), every user turn as long as the simulator's word cap allows at most. Simulator calls are not the
    target's and are not counted here."""
    item = resolve_simulated(library, spec.perturbation_id, spec.condition_id)
    sent = estimate_tokens(item.system_prompt)
    prompt = sum(
        sent + (i - 1) * COMPLETION_TOKENS_PER_CALL + i * SIMULATED_TURN_TOKENS
        for i in range(1, turn_cap + 1)
    )
    return ItemCost(turn_cap, prompt, turn_cap * COMPLETION_TOKENS_PER_CALL)


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
    turn_cap: int = SIMULATED_TURN_CAP,
    suite: SuiteSpec | None = None,
) -> Plan:
    """Sums the cost over `specs` (in the order they will run); the run keeps the longest prefix whose target
    calls and estimated tokens stay within the caps. Judge calls are counted apart and are not capped.

    Costs are computed once per matrix cell: repeats of a cell cost the same. `suite` says what the target is
    asked (a classify suite's items are one labelling call each, and no judge grades them)."""
    from app.kinds.registry import kind_named

    plan = Plan()
    costs: dict[tuple[str, str, str | None, str], ItemCost] = {}
    within = True
    for spec in specs:
        cell = (spec.scenario_id, spec.condition_id, spec.user_context_id, spec.perturbation_id)
        cost = costs.get(cell) or costs.setdefault(cell, item_cost(library, spec, turn_cap, suite))
        plan.items += 1
        plan.calls += cost.calls
        plan.prompt_tokens_est += cost.prompt_tokens
        plan.completion_tokens_est += cost.completion_tokens
        plan.judge_calls += judge_calls_per_item * kind_named(spec.kind).judge_questions
        tokens = plan.prompt_tokens_est + plan.completion_tokens_est
        within = (
            within
            and (max_calls is None or plan.calls <= max_calls)
            and (max_tokens is None or tokens <= max_tokens)
        )
        if within:
            plan.items_within_budget += 1
    return plan


def suite_plan(
    library: Library, suite: str, *, judge_calls_per_item: int = 0, turn_cap: int = SIMULATED_TURN_CAP
) -> Plan:
    """The plan of one uncapped pass over a suite. Every evaluation of the suite asks the same (the full suite's
    takes ~0.2 s of rendering prompts to cost), so it is computed once per loaded library and kept with it."""
    key = ("plan", suite, judge_calls_per_item, turn_cap)
    plan = library.derived.get(key)
    if plan is None:
        plan = library.derived[key] = plan_run(
            library,
            expand_suite(library, suite),
            judge_calls_per_item=judge_calls_per_item,
            turn_cap=turn_cap,
            suite=library.suites[suite],
        )
    return plan
