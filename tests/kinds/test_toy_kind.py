"""A kind of item added by a test alone: registered in app/kinds, it is planned, played, graded and reported
through POST /v1/evaluations like the built-in ones, with nothing of it written into the runner or the report."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
import yaml
from fastapi.testclient import TestClient

from app.benchmark.items import ItemSpec
from app.benchmark.loader import Library
from app.benchmark.plan import COMPLETION_TOKENS_PER_CALL, ItemCost, estimate_tokens
from app.benchmark.schema import SuiteSpec
from app.config import Settings
from app.kinds.base import Cell, PlayContext, Played
from app.kinds.registry import kind_named, register, unregister
from app.main import create_app
from app.scoring.facets import StoredItem
from tests.routers.conftest import TARGET_URL, chat_reply, make_target
from tests.waits import settled

pytestmark = pytest.mark.usefixtures("mock_target")

TOY = "TOY"


class Echo:
    """The toy kind: the target is asked to repeat a word from a data file of its own; a reply holding the word
    passes."""

    name = "echo"
    judge_questions = 0
    uses_simulator = False
    conversation = False
    document = None  # its report section is its own, published nowhere

    def __init__(self, words_file: Path) -> None:
        self.words: dict[str, str] = yaml.safe_load(words_file.read_text())["words"]

    def cells(self, library: Library, suite: SuiteSpec) -> Iterator[Cell]:
        for word_id in sorted(self.words):
            yield TOY, f"{TOY}-plain", None, f"{TOY}-{word_id}"

    def _ask(self, spec: ItemSpec) -> list[dict[str, str]]:
        word = self.words[spec.perturbation_id.split("-", 1)[1]]
        return [{"role": "user", "content": f"Please repeat this word: {word}"}]

    def cost(self, library: Library, spec: ItemSpec, suite: SuiteSpec | None, turn_cap: int) -> ItemCost:
        return ItemCost(1, estimate_tokens(self._ask(spec)[0]["content"]), COMPLETION_TOKENS_PER_CALL)

    async def play(self, ctx: PlayContext, spec: ItemSpec) -> Played:
        messages = self._ask(spec)
        reply = await ctx.adapter.complete(list(messages))
        if reply.ok:
            messages.append({"role": "assistant", "content": reply.text or ""})
        return Played(messages, reply, 1, self.words[spec.perturbation_id.split("-", 1)[1]])

    async def grade(self, ctx: PlayContext, played: Played) -> dict[str, Any]:
        if not played.reply.ok:
            return {}
        echoed = played.state in (played.reply.text or "")
        return {
            "verdict": "PASS" if echoed else "FAIL",
            "checks": {"echo": {"echoed": echoed}},
            "reasons": [] if echoed else [f"did not repeat {played.state!r}"],
        }

    def report(self, items: Iterable[StoredItem], library: Library, *, with_slices: bool) -> dict[str, Any]:
        rows = list(items)
        echoed = sum(bool(i.checks.get("echo", {}).get("echoed")) for i in rows)
        section = {
            "echo": {"n": len(rows), "echoed": echoed, "errors": sum(bool(i.error_class) for i in rows)}
        }
        return {**section, "board_slices": {}} if with_slices else section


@pytest.fixture
def echo(tmp_path: Path, mini_data_dir: Path) -> Iterator[Echo]:
    """The echo kind registered, its words in a data file of its own, and the mini library's quick suite of it."""
    words = tmp_path / "echo_words.yaml"
    words.write_text(yaml.safe_dump({"words": {"w1": "marigold", "w2": "lantern", "w3": "harbour"}}))
    kind = Echo(words)
    register(kind)
    suites_path = mini_data_dir / "suites.yaml"
    suites = yaml.safe_load(suites_path.read_text())
    suites["suites"]["quick"] = {"description": "echo a word", "kind": "echo"}
    suites_path.write_text(yaml.safe_dump(suites, sort_keys=False))
    yield kind
    unregister(kind.name)


@pytest.fixture
def client(settings: Settings, echo: Echo) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["Authorization"] = (
            "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        )
        yield test_client


def parrot(request: httpx.Request) -> httpx.Response:
    """Repeats the word, except "harbour", which it mishears."""
    word = json.loads(request.content)["messages"][-1]["content"].rsplit(" ", 1)[-1]
    return chat_reply("arbour" if word == "harbour" else word)


def test_a_registered_kind_runs_end_to_end_through_the_api(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    route = mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=parrot)
    created = client.post("/v1/evaluations", json={"target_id": make_target(client), "suite": "quick"})
    assert created.status_code == 202, created.text
    body = created.json()
    assert body["plan"]["items"] == body["plan"]["calls"] == 3 and body["plan"]["judge_calls"] == 0
    assert settled(client, body["id"])["status"] == "succeeded"
    assert route.call_count == 3

    items = client.get(f"/v1/evaluations/{body['id']}/results").json()["items"]
    verdicts = {i["perturbation_id"]: i["verdict"] for i in items}
    assert verdicts == {"TOY-w1": "PASS", "TOY-w2": "PASS", "TOY-w3": "FAIL"}
    failed = next(i for i in items if i["verdict"] == "FAIL")
    assert failed["reasons"] == ["did not repeat 'harbour'"]
    assert failed["messages"][-1] == {"role": "assistant", "content": "arbour"}

    report = client.get(f"/v1/evaluations/{body['id']}/report").json()
    assert report["echo"] == {"n": 3, "echoed": 2, "errors": 0}
    assert "headline" not in report  # the replies' report is the built-in kinds', not every kind's


def test_a_kind_name_is_taken_once_and_a_suite_may_name_only_a_registered_one(echo: Echo) -> None:
    assert kind_named("echo") is echo
    with pytest.raises(ValueError, match="registered already"):
        register(echo)
    with pytest.raises(ValueError, match="unknown suite kind 'parrot'"):
        SuiteSpec(description="d", kind="parrot")
