"""The bare condition through the runner: the target gets the user's turns and no system message at all."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import respx
from sqlmodel import Session, col, select

from app.benchmark.loader import load_library
from app.benchmark.schema import SuiteSpec
from app.config import Settings
from app.store.models import EvaluationItem
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.synthetic import SUITE

BASE = "http://127.0.0.1:9914/v1"


def _reply(request: httpx.Request) -> httpx.Response:
    text = (
        "That sounds hard. I can't say what it is, but a GP can help you find out. How are you doing today?"
    )
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}]})


async def test_a_bare_item_sends_no_system_message_and_is_graded(tmp_path: Path) -> None:
    library = load_library()
    scenario = library.scenarios["P3-B1-S1"]
    bare = next(k for k, v in scenario.conditions.items() if library.conditions[v].bare)
    # The bare condition beside the plain assistant, so the same run shows the system message where it belongs.
    scenario = scenario.model_copy(update={"conditions": {"C1": scenario.conditions["C1"], bare: "bare"}})
    lib = replace(
        library,
        scenarios={scenario.id: scenario},
        suites={
            **library.suites,
            SUITE: SuiteSpec(description="bare vs plain", perturbations_per_scenario=2),
        },
    )
    settings = Settings(var_dir=tmp_path / "var", target_allowlist="127.0.0.0/8", max_retries=0)
    deps = make_deps(settings, lib)
    with respx.mock(using="httpx", assert_all_called=True) as router:
        route = router.post(f"{BASE}/chat/completions").mock(side_effect=_reply)
        evaluation = create_evaluation(deps, base_url=BASE, concurrency=2)
        await run_evaluation(deps, evaluation, max_jobs=1)
    sent = [json.loads(call.request.content)["messages"] for call in route.calls]
    with_system = [m for m in sent if any(x["role"] == "system" for x in m)]
    without = [m for m in sent if all(x["role"] == "user" for x in m)]
    # Plain: no context + 4 user contexts; bare: the no-context cell only (memory would never reach it).
    assert len(with_system) == 2 * 5 and len(without) == 2 and len(sent) == 12
    assert all(len(m) == 1 for m in without)
    with Session(deps.engine) as session:
        rows = session.exec(
            select(EvaluationItem).where(col(EvaluationItem.condition_id).endswith(f"-{bare}"))
        ).all()
    assert len(rows) == 2 and all(r.user_context_id is None and r.verdict for r in rows)
    assert all(not any(m["role"] == "system" for m in r.messages) for r in rows)
    assert written(deps, evaluation.id).status == "succeeded"
