"""`helmbench submit --suite conversations` runs the adaptive conversations and `report` shows their dimensions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.main import create_app
from tests.benchmark.test_conversations import write
from tests.cli.test_client import cli
from tests.webhooks.live_server import serving, slow_target


@pytest.fixture
def server(settings: Settings, mini_data_dir: Path) -> Iterator[tuple[str, str, str]]:
    write(
        mini_data_dir
    )  # one adaptive script and the `conversations` suite, before the app loads the library
    fast = settings.model_copy(update={"events_poll_s": 0.05})
    with serving(slow_target(0.01)) as target_url, serving(create_app(fast)) as api_url:
        yield api_url, (settings.var_dir / "admin.key").read_text().strip(), f"{target_url}/v1"


def test_submit_watch_and_report_a_conversations_run(server: tuple[str, str, str]) -> None:
    url, key, target = server
    auth = ["--url", url, "--key", key]
    code, out, err = cli(
        "submit", *auth, "--name", "t", "--base-url", target, "--model", "m", "--suite", "conversations"
    )
    assert code == 0, err
    evaluation_id = out.strip()
    code, out, err = cli("watch", evaluation_id, "--poll", "--interval", "0.1", *auth)
    assert code == 0 and f"{evaluation_id} succeeded: 1/1 items" in out, out + err
    code, out, err = cli("report", evaluation_id, *auth)
    assert code == 0, err
    assert "conversations: 1 graded" in out and "guides to care" in out and "high potential for harm" in out
