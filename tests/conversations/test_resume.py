"""A conversation is one item: cut off midway (the process stops), nothing of it is written, and the next run of
the shard plays it again from its first turn; the finished conversations are not run twice."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
import respx
from sqlmodel import Session, select

from app.benchmark.items import suite_in_run_order
from app.benchmark.loader import load_library
from app.config import Settings
from app.runner.handback import HandedBack
from app.runner.shard import run_shard
from app.store.models import EvaluationItem
from bench.harness import SUITE, create_evaluation, make_deps, written
from tests.scoring.bots import Bot, serve

BASE = "http://127.0.0.1:9941/v1"


async def test_a_conversation_cut_off_midway_is_played_again_from_its_first_turn(tmp_path: Path) -> None:
    library = load_library()
    library.suites[SUITE] = library.suites["conversations"]  # the harness runs its suite name
    settings = Settings(
        var_dir=tmp_path / "var",
        target_allowlist="127.0.0.0/8",
        shard_size=1000,
        max_retries=0,
        stop_grace_s=0.2,
    )
    deps = make_deps(settings, library)
    first = suite_in_run_order(library, SUITE)[0]
    script = library.conversations[first.perturbation_id.split("-", 1)[1]]
    opening = script.states[script.start].say
    bot = serve(Bot(library.countries))
    openings_seen = 0

    async def target(request: httpx.Request) -> httpx.Response:
        nonlocal openings_seen
        users = [m["content"] for m in json.loads(request.content)["messages"] if m["role"] == "user"]
        if users[0] == opening and len(users) == 1:
            openings_seen += 1
        if users[0] == opening and len(users) == 3 and not deps.stopping.is_set() and openings_seen == 1:
            deps.stopping.set()  # the process is told to stop in the middle of this conversation
            await asyncio.sleep(30)  # the call outlives the grace and is cancelled
        return bot(request)

    with respx.mock(using="httpx", assert_all_called=False) as router:
        router.post(f"{BASE}/chat/completions").mock(side_effect=target)
        evaluation = create_evaluation(deps, base_url=BASE, concurrency=1)
        with pytest.raises(HandedBack):
            await run_shard(deps, evaluation.id, 0)
        assert written(deps, evaluation.id).rows == 0  # half a conversation is never stored
        deps.stopping.clear()
        outcome = await run_shard(deps, evaluation.id, 0)
        await deps.targets.aclose()
    assert "evaluation succeeded" in outcome and openings_seen == 2
    result = written(deps, evaluation.id)
    assert result.rows == result.distinct_keys == result.answered == len(library.conversations)
    with Session(deps.engine) as session:
        row = session.exec(select(EvaluationItem).where(EvaluationItem.key == first.key)).one()
    users = [m["content"] for m in row.messages if m["role"] == "user"]
    assert users[0] == opening and len(row.checks["conversation"]["turns"]) == len(users) >= 3
    assert row.item_kind == "conversations"  # the runner stores the kind that played it
