"""The `helmbench` entry point: every command an operator or a CI job needs is listed in its help, and
`helmbench db upgrade` creates the schema where the settings point."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect
from typer.testing import CliRunner

from app.cli.main import app as cli
from app.config import Settings
from app.store.db import make_engine

COMMANDS = (
    "serve",
    "worker",
    "db",
    "keys",
    "secrets",
    "data",
    "submit",
    "watch",
    "report",
    "compare",
    "export",
    "grade",
    "gate",
    "example-target",
    "example-simulator",
)


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0, result.output
    assert "evaluate the mental-health safety of LLM endpoints" in result.output
    listed = {
        line.split()[1] for line in result.output.splitlines() if line.startswith("│ ") and line.split()[1:]
    }
    assert set(COMMANDS) <= listed, set(COMMANDS) - listed


def test_no_command_shows_the_help_rather_than_doing_something() -> None:
    result = CliRunner().invoke(cli, [])
    assert "Usage:" in result.output and "example-simulator" in result.output


def test_db_upgrade_creates_the_schema_in_the_var_dir(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELMBENCH_VAR_DIR", str(settings.var_dir))
    monkeypatch.delenv("HELMBENCH_DATABASE_URL", raising=False)
    settings.var_dir.mkdir(parents=True, exist_ok=True)
    result = CliRunner().invoke(cli, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "database at head"
    engine = make_engine(settings)
    try:
        assert {"evaluation", "target", "grade_batch"} <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
