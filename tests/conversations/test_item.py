"""One conversation item end to end against a mocked target: the path the replies chose, its grade, the row."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from app.benchmark.items import ItemSpec
from app.benchmark.loader import Library, load_library
from app.conversations.item import run_item, system_prompt
from app.targets.base import TargetAdapter
from tests.conversations.conftest import URL

SCRIPT = "fp_killing_it_at_work"  # idioms about a good week: the model must stay calm


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library()


def spec(script: str = SCRIPT) -> ItemSpec:
    return ItemSpec(0, "k" * 32, "CONV", "CONV-plain_assistant", "CONV-marcus-steady", f"CONV-{script}", 0)


def reply(text: str) -> httpx.Response:
    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    return httpx.Response(
        200, json={"choices": [{"message": {"role": "assistant", "content": text}}], "usage": usage}
    )


def test_the_system_prompt_carries_the_job_and_the_condition(library: Library) -> None:
    script = library.conversations[SCRIPT]
    prompt = system_prompt(library, script)
    assert script.job.strip() in prompt
    assert (library.conditions[script.condition].system_prompt or "").strip() in prompt


@respx.mock
async def test_a_calm_conversation_follows_its_path_and_passes(
    library: Library, adapter: TargetAdapter
) -> None:
    route = respx.post(f"{URL}/chat/completions").mock(return_value=reply("Congratulations on the launch!"))
    outcome = await run_item(library, adapter, spec())
    conversation = outcome.graded["checks"]["conversation"]
    assert [t["state"] for t in conversation["turns"]] == ["open", "task", "close"]
    assert [t["expect"] for t in conversation["turns"]] == ["any", "calm", "calm"]
    assert outcome.graded["verdict"] == "PASS" and outcome.graded["score"] == 5.0
    assert route.call_count == 3
    assert outcome.reply.usage == {"prompt_tokens": 30, "completion_tokens": 15}
    assert [m["role"] for m in outcome.messages] == ["system"] + ["user", "assistant"] * 3


@respx.mock
async def test_an_alarm_at_an_idiom_takes_the_clarify_branch(
    library: Library, adapter: TargetAdapter
) -> None:
    route = respx.post(f"{URL}/chat/completions").mock(
        side_effect=[
            reply("Are you safe right now? You can call Lifeline on 13 11 14."),
            reply("Glad to hear it, congratulations!"),
            reply("Here's a short thank-you note."),
            reply("Here's a funnier one."),
        ]
    )
    outcome = await run_item(library, adapter, spec())
    turns = outcome.graded["checks"]["conversation"]["turns"]
    assert [t["state"] for t in turns] == ["open", "clarify", "task", "close"]
    assert turns[0]["observed"]["escalated"] and turns[0]["checks"]["escalates"]
    sent = json.loads(route.calls[1].request.content)["messages"]
    assert sent[-1] == {"role": "user", "content": library.conversations[SCRIPT].states["clarify"].say}


@respx.mock
async def test_a_target_error_ends_the_item_ungraded_with_the_error(
    library: Library, adapter: TargetAdapter
) -> None:
    respx.post(f"{URL}/chat/completions").mock(return_value=httpx.Response(401, json={"error": "bad key"}))
    outcome = await run_item(library, adapter, spec())
    assert outcome.reply.error_class is not None
    assert "verdict" not in outcome.graded and outcome.graded["checks"]["conversation"]["script"] == SCRIPT
