"""`helmbench watch`: log lines while a run is going when stdout is not a terminal, a live bar on one, and the
error count a run really had."""

from __future__ import annotations

import asyncio
import itertools
import os
import pty
import select
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI, Request, Response

from app.client import HelmbenchClient
from app.config import Settings
from app.main import create_app
from app.store.statuses import ACTIVE
from tests.cli.test_client import cli, server  # noqa: F401 - the served app and fast target
from tests.webhooks.live_server import serving, slow_target

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def slow(settings: Settings) -> Iterator[tuple[list[str], str]]:
    """(auth options, target URL): the app and a bot taking 0.1 s per reply."""
    fast = settings.model_copy(update={"events_poll_s": 0.05})
    with serving(slow_target(0.1)) as target, serving(create_app(fast)) as api_url:
        key = (settings.var_dir / "admin.key").read_text().strip()
        yield ["--url", api_url, "--key", key], f"{target}/v1"


def start_one_at_a_time(auth: list[str], target: str, tmp_path: Path, repeats: int) -> str:
    """A run whose items go one at a time (max_concurrency 1), so it lasts about repeats × 0.9 s."""
    spec = tmp_path / "target.yaml"
    spec.write_text(
        f"target: {{name: slow, base_url: '{target}', model: s, max_concurrency: 1}}\n"
        f"evaluation: {{suite: full, repeats: {repeats}}}\n"
    )
    code, out, err = cli("submit", *auth, "--target-file", str(spec))
    assert code == 0, err
    return next(word for word in out.split() if word.startswith("ev_"))


def helmbench(*args: str) -> list[str]:
    return [sys.executable, "-m", "app.cli.main", *args]


def held_target(answered_freely: int, release: threading.Event) -> FastAPI:
    """slow_target's bot (0.05 s a reply) that answers the first calls (the probes among them), then holds
    every reply until `release` is set: a run that is surely still going while the test looks."""
    inner = slow_target(0.05)
    app = FastAPI()
    calls = itertools.count()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> Response:
        if next(calls) >= answered_freely:
            while not release.is_set():
                await asyncio.sleep(0.01)
        body = await request.body()
        transport = httpx.ASGITransport(app=inner)
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as bot:
            reply = await bot.post("/v1/chat/completions", content=body)
        return Response(reply.content, media_type="application/json")

    return app


def test_off_a_terminal_progress_lines_come_while_the_run_goes(settings: Settings, tmp_path: Path) -> None:
    release = threading.Event()
    fast = settings.model_copy(update={"events_poll_s": 0.05})
    held = held_target(2 + 3, release)  # two probes (target, evaluation), then three items
    with serving(held) as target, serving(create_app(fast)) as api_url:
        auth = ["--url", api_url, "--key", (settings.var_dir / "admin.key").read_text().strip()]
        evaluation_id = start_one_at_a_time(auth, f"{target}/v1", tmp_path, repeats=1)
        with subprocess.Popen(
            helmbench("watch", evaluation_id, *auth, "--every", "0"),
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "COLUMNS": "200"},
        ) as watcher:
            assert watcher.stdout is not None
            first = watcher.stdout.readline()
            status_then = HelmbenchClient(auth[1], auth[3]).get_evaluation(evaluation_id).status
            release.set()
            rest = watcher.stdout.read()
    assert watcher.returncode == 0
    assert status_then in ACTIVE, "the first line came while the run was still going"
    assert first.startswith(f"{evaluation_id} running: ") and "/9 items" in first
    lines = [first.rstrip("\n"), *rest.splitlines()]
    progress = [line for line in lines if " running: " in line]
    assert len(progress) >= 2 and "ETA" in "".join(progress[1:])  # items finished while it watched
    assert lines[-1] == f"{evaluation_id} succeeded: 9/9 items, pass rate 100.0%, errors: none"
    assert not any("━" in line for line in lines), "no bar drawn into a log"


def test_every_spaces_the_lines_out(slow: tuple[list[str], str], tmp_path: Path) -> None:
    auth, target = slow
    evaluation_id = start_one_at_a_time(auth, target, tmp_path, repeats=2)
    code, out, _ = cli("watch", evaluation_id, *auth, "--every", "60")
    assert code == 0
    progress = [line for line in out.splitlines() if line.startswith(evaluation_id)]
    assert len(progress) == 2 and progress[-1].startswith(
        f"{evaluation_id} succeeded: 18/18"
    )  # first, then the end


def test_on_a_terminal_a_live_bar(slow: tuple[list[str], str], tmp_path: Path) -> None:
    auth, target = slow
    evaluation_id = start_one_at_a_time(auth, target, tmp_path, repeats=1)
    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160"}
    env.pop("NO_COLOR", None)
    watcher = subprocess.Popen(
        helmbench("watch", evaluation_id, *auth), stdout=follower, stderr=follower, cwd=ROOT, env=env
    )
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the watcher ended
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert watcher.wait(timeout=30) == 0
    text = seen.decode(errors="replace")
    assert "━" in text and "ETA" in text and "9/9" in text
    assert f"{evaluation_id} succeeded: 9/9 items" in text


def test_the_error_count_is_the_runs_own_streamed_or_polled(server: tuple[str, str, str]) -> None:  # noqa: F811
    url, key, target = server
    auth = ["--url", url, "--key", key]
    nowhere = target.removesuffix("/v1") + "/nowhere"  # every call 404s
    code, out, err = cli(
        "submit", *auth, "--name", "gone", "--base-url", nowhere, "--model", "m", "--suite", "full"
    )
    assert code == 0, err
    evaluation_id = out.strip()
    code, streamed, _ = cli("watch", evaluation_id, *auth)
    assert code == 1
    summary = streamed.strip().splitlines()[-1]
    assert summary.startswith(f"{evaluation_id} failed: 9/9 items") and "errors: none" not in summary
    failed = HelmbenchClient(url, key).get_evaluation(evaluation_id).progress.failed
    assert failed == 9 and "errors: 9 (" in summary  # the count, then its classes
    code, polled, _ = cli("watch", evaluation_id, *auth, "--poll", "--interval", "0.05")
    assert code == 1 and polled.strip().splitlines()[-1].endswith("errors: 9")
