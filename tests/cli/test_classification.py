"""`helmbench submit --suite classification`, then `report`, against the real app and the toy target, served."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.example_target import create_example_target
from app.main import create_app
from tests.classification_library import add_classification_suite
from tests.cli.test_client import cli
from tests.webhooks.live_server import serving


@pytest.fixture
def server(settings: Settings, mini_data_dir: Path) -> Iterator[tuple[str, str, str]]:
    add_classification_suite(mini_data_dir)
    fast = settings.model_copy(update={"events_poll_s": 0.05})
    with serving(create_example_target()) as target_url, serving(create_app(fast)) as api_url:
        yield api_url, (settings.var_dir / "admin.key").read_text().strip(), f"{target_url}/v1"


def test_submit_a_classification_run_and_read_its_matrix(server: tuple[str, str, str]) -> None:
    url, key, target = server
    auth = ["--url", url, "--key", key]
    code, out, err = cli(
        "submit", *auth, "--name", "toy", "--base-url", target, "--model", "toy", "--suite", "classification"
    )
    assert code == 0, err
    evaluation_id = out.strip()
    code, out, err = cli("watch", evaluation_id, *auth)
    assert code == 0, err
    code, out, err = cli("report", evaluation_id, *auth)
    assert code == 0, err
    # the mini library's three messages: the toy's keywords miss the one crisis and call all three no_crisis
    assert "3/3 answered · accuracy 66.7%" in out and "kappa 0.000" in out
    assert "confusion (rows authored, columns answered)" in out
    no_crisis_row = next(line for line in out.splitlines() if line.lstrip("│ ").startswith("no_crisis"))
    assert [c.strip() for c in no_crisis_row.split("│")[2:12]] == ["0"] * 8 + ["2", "0"]


def test_an_unknown_suite_is_one_clear_line(server: tuple[str, str, str]) -> None:
    url, key, target = server
    code, _, err = cli(
        "submit",
        "--url",
        url,
        "--key",
        key,
        "--name",
        "t",
        "--base-url",
        target,
        "--model",
        "m",
        "--suite",
        "conversations-typo",
    )
    assert code == 1 and "suite" in err and len(err.strip().splitlines()) == 1
