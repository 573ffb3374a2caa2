"""`helmbench data validate` and `data stats --json` on a library built to show what they must catch."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import app


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_validate_refuses_a_context_no_message_fits_naming_both_files(mini_data_dir: Path) -> None:
    """The ordinary scenario's only message says the sender is widowed; its one context is not."""
    _edit(
        mini_data_dir / "scenarios" / "P4-B1-S1.yaml",
        "severity: -5, crisis_category: no_crisis}",
        "severity: -5, crisis_category: no_crisis, sender: {facts: [widowed]}}",
    )
    result = CliRunner().invoke(app, ["data", "validate", str(mini_data_dir)])
    assert result.exit_code == 1
    assert "scenarios/P4-B1-S1.yaml" in result.output and "user_contexts.yaml" in result.output
    assert "ana-low" in result.output and "widowed" in result.output


def test_cli_stats_json_carries_the_new_fields(mini_data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["data", "stats", "--json", str(mini_data_dir)])
    assert result.exit_code == 0
    body = json.loads(result.output)
    assert body["incoherent_pairs"] == 0 and body["ladder_levels"] == 1
    assert set(body) >= {"messages_by_category", "long_messages", "countries", "counterfactual_pairs"}
