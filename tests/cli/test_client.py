"""The client commands run through typer's CliRunner against the real app served on a loopback port."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from app.cli.compare import local_compare
from app.cli.main import app
from app.client import HelmbenchClient
from app.config import Settings
from app.main import create_app
from tests.real_library import real_library_settings
from tests.webhooks.live_server import free_port, serving, slow_target

WIDE = {"COLUMNS": "160"}


@pytest.fixture
def server(settings: Settings) -> Iterator[tuple[str, str, str]]:
    """(API URL, admin key, chat target URL): the app and a target taking 30 ms per reply, both served."""
    fast = settings.model_copy(update={"events_poll_s": 0.05})
    with serving(slow_target(0.03)) as target_url, serving(create_app(fast)) as api_url:
        yield api_url, (settings.var_dir / "admin.key").read_text().strip(), f"{target_url}/v1"


def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={**WIDE, **(env or {})})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception  # a crash is a bug, never an answer
    return result.exit_code, result.stdout, result.stderr


def test_submit_watch_report_export_compare(server: tuple[str, str, str], tmp_path: Path) -> None:
    url, key, target = server
    auth = ["--url", url, "--key", key]
    code, out, err = cli(
        "submit", *auth, "--name", "careful", "--base-url", target, "--model", "c-1", "--suite", "full"
    )
    assert code == 0, err
    first = out.strip()
    assert first.startswith("ev_")

    code, out, err = cli("watch", first, *auth)
    assert code == 0, err
    assert f"{first} succeeded: 9/9 items, pass rate 100.0%, errors: none" in out

    target_file = tmp_path / "target.yaml"
    target_file.write_text(
        f"target: {{name: careful, base_url: '{target}', model: c-1}}\nevaluation: {{suite: full}}\n"
    )
    code, out, err = cli(
        "submit", "--target-file", str(target_file), env={"HELMBENCH_URL": url, "HELMBENCH_KEY": key}
    )
    assert code == 0, err
    second = out.strip()
    assert second != first
    assert len(HelmbenchClient(url, key).list_targets()) == 1, (
        "the same target is reused, not registered twice"
    )
    code, out, _ = cli("watch", second, "--poll", "--interval", "0.1", *auth)
    assert code == 0 and f"{second} succeeded: 9/9 items" in out

    code, out, err = cli("report", first, *auth)
    assert code == 0, err
    assert "pass rate 100.0%" in out and "pillar" in out and "P1" in out and "condition" in out
    code, out, _ = cli("report", first, "--json", *auth)
    assert json.loads(out)["evaluation_id"] == first

    items = tmp_path / "items.jsonl"
    code, _, err = cli("export", first, "-o", str(items), *auth)
    assert code == 0, err
    lines = [json.loads(line) for line in items.read_text().splitlines()]
    assert len(lines) == 9 and len({i["key"] for i in lines}) == 9
    assert all(i["verdict"] == "PASS" for i in lines)
    code, out, _ = cli("export", first, "--format", "csv", *auth)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["section"] == "overall" and rows[0]["pass_rate"] == "1.0"
    assert {r["group"] for r in rows if r["section"] == "pillar"} == {"P1", "P4"}

    code, out, err = cli("compare", first, second, *auth)
    assert code == 0, err
    assert "B − A" in out and "pass rate" in out and "headline score" in out and "+0.000" in out


def test_client_side_compare_matches_both_reports(server: tuple[str, str, str]) -> None:
    url, key, target = server
    auth = ["--url", url, "--key", key]
    ids = []
    for _ in range(2):
        code, out, _ = cli("submit", *auth, "--name", "c", "--base-url", target, "--model", "m")
        ids.append(out.strip())
        assert cli("watch", ids[-1], *auth)[0] == 0
    body = local_compare(HelmbenchClient(url, key), *ids)
    assert body["metrics"]["pass_rate"] == {"a": 1.0, "b": 1.0, "difference": 0.0}
    assert set(body["metrics"]) >= {"headline", "pass_rate", "pillar:P1"}


def test_errors_are_one_clear_line(server: tuple[str, str, str]) -> None:
    url, key, _ = server
    code, out, err = cli("report", "ev_missing", "--url", url, "--key", key)
    assert code == 1 and err.strip() == "error: 404 Not found: no evaluation 'ev_missing' [evaluation_id]"
    code, _, err = cli("watch", "ev_x", "--url", url, "--key", "hb_wrong")
    assert code == 1 and err.startswith("error: 401 Unauthorized:") and len(err.strip().splitlines()) == 1
    code, _, err = cli("report", "ev_x", "--url", f"http://127.0.0.1:{free_port()}", "--key", key)
    assert code == 1 and err.startswith("error: cannot reach http://127.0.0.1:")
    code, _, err = cli("submit", "--url", url, "--key", key, "--name", "x")
    assert code == 1 and err.strip() == "error: --base-url is required without --target-id"
    code, _, err = cli("submit", "--url", url, "--key", key, "--target-id", "tgt_x", "--suite", "everything")
    assert code == 1 and err.startswith("error: --suite: ") and len(err.strip().splitlines()) == 1
    code, _, err = cli("report", "ev_x", "--url", url, env={"HELMBENCH_KEY": ""})
    assert code == 1 and "no API key" in err


def test_item_exports_as_csv_and_parquet_hold_every_item(
    server: tuple[str, str, str], tmp_path: Path
) -> None:
    url, key, target = server
    auth = ["--url", url, "--key", key]
    code, out, err = cli(
        "submit", *auth, "--name", "c", "--base-url", target, "--model", "c-1", "--suite", "full"
    )
    assert code == 0, err
    evaluation_id = out.strip()
    assert cli("watch", evaluation_id, *auth)[0] == 0
    code, out, err = cli("export", evaluation_id, *auth)
    keys = [json.loads(line)["key"] for line in out.splitlines()]
    code, _, err = cli("export", evaluation_id, "--format", "items-csv", "-o", str(tmp_path / "i.csv"), *auth)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO((tmp_path / "i.csv").read_text(), newline="")))
    assert [r["key"] for r in rows] == keys and len(keys) == 9
    assert {r["verdict"] for r in rows} == {"PASS"} and "check_escalates" in rows[0]
    code, _, err = cli(
        "export", evaluation_id, "--format", "parquet", "-o", str(tmp_path / "i.parquet"), *auth
    )
    assert code == 0, err
    assert pq.read_table(tmp_path / "i.parquet").column("key").to_pylist() == keys
    code, _, err = cli(
        "export", "ev_missing", "--format", "parquet", "-o", str(tmp_path / "x.parquet"), *auth
    )
    assert code == 1 and err.strip() == "error: 404 Not found: no evaluation 'ev_missing' [evaluation_id]"


def test_submit_with_a_call_budget_and_watch_it_stop(server: tuple[str, str, str]) -> None:
    url, key, target = server
    auth = ["--url", url, "--key", key]
    code, out, err = cli(
        "submit",
        *auth,
        "--name",
        "b",
        "--base-url",
        target,
        "--model",
        "c-1",
        "--suite",
        "full",
        "--max-calls",
        "2",
    )
    assert code == 0, err
    # the id submit printed (the in-thread server's log lines can land in the same captured stdout)
    evaluation_id = next(word for word in out.split() if word.startswith("ev_"))
    code, out, _ = cli("watch", evaluation_id, *auth)
    assert code == 1 and f"{evaluation_id} stopped_by_budget: 2/2 items" in out


def test_submit_a_simulated_run_against_the_toy_simulator_and_watch_it_finish(tmp_path: Path) -> None:
    """Real servers on loopback: the app (real library), the toy bot and the toy simulator that plays the cards."""
    from app.example_simulator import create_example_simulator
    from app.example_target import create_example_target

    settings = real_library_settings(
        tmp_path / "var",
        events_poll_s=0.05,
    )
    with (
        serving(create_example_target()) as bot,
        serving(create_example_simulator()) as simulator,
        serving(create_app(settings)) as url,
    ):
        auth = ["--url", url, "--key", (settings.var_dir / "admin.key").read_text().strip()]
        target = ["--name", "toy", "--base-url", f"{bot}/v1", "--model", "toy"]
        code, out, err = cli(
            "submit", *auth, *target, "--suite", "simulated", "--simulator-url", f"{simulator}/v1"
        )
        assert code != 0 and "--simulator-model is required" in err
        sim = ["--simulator-url", f"{simulator}/v1", "--simulator-model", "toy-sim", "--turn-cap", "5"]
        code, out, err = cli("submit", *auth, *target, "--suite", "simulated", *sim)
        assert code == 0, err
        evaluation_id = out.strip()
        code, out, err = cli("watch", evaluation_id, *auth)
        assert code == 0, err
        assert f"{evaluation_id} succeeded: 120/120 items" in out
        client = HelmbenchClient(url, auth[3])
        report = client.report(evaluation_id)
        assert report["simulated"]["n"] == 120 and report["simulated"]["simulator_errors"]["n"] == 0
        for item in client.results(evaluation_id, limit=5).items:
            said = [m for m in item.messages if m["role"] == "user"]
            assert 3 <= len(said) <= 5 and item.checks["conversation"]["turns"]
