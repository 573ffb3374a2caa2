"""The Dockerfile and compose.yaml keep their word: the image holds the wheel alone, compose runs real commands."""

from __future__ import annotations

import re
from itertools import takewhile
from pathlib import Path

import yaml
from typer.testing import CliRunner

from app.cli.main import app

ROOT = Path(__file__).resolve().parents[1]


def stages() -> list[list[str]]:
    """The Dockerfile's instructions (continuation lines joined), one list per stage."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    found: list[list[str]] = []
    for line in lines:
        if line.upper().startswith("FROM "):
            found.append([])
        found[-1].append(line)
    return found


def test_the_image_installs_the_built_wheel_and_nothing_else_from_the_tree() -> None:
    build, image = stages()
    assert build[0].endswith(" AS build")
    # The build stage copies what tests/e2e/test_installed_wheel.py builds from, so that test covers the image's wheel.
    assert [line for line in build if line.startswith("COPY")] == [
        "COPY pyproject.toml setup.py MANIFEST.in README.md ./",
        "COPY app ./app",
        "COPY benchmark_data ./benchmark_data",
        "COPY migrations ./migrations",
    ]
    copies = [line for line in image if line.startswith(("COPY", "ADD"))]
    assert copies == ["COPY --from=build /wheels /tmp/wheels"]
    assert any("pip install /tmp/wheels/helmbench-*.whl" in line for line in image)
    assert not any("HELMBENCH_DATA_DIR" in line for line in image)  # the library comes from the wheel


def test_compose_runs_commands_the_cli_has() -> None:
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    commands = [s["command"] for s in services.values() if s.get("command", [""])[0] == "helmbench"]
    assert {tuple(c[:2]) for c in commands} >= {
        ("helmbench", "serve"),
        ("helmbench", "worker"),
        ("helmbench", "db"),
    }
    for command in commands:
        words = list(takewhile(lambda w: not w.startswith("-"), command[1:]))  # the subcommand
        result = CliRunner().invoke(app, [*words, "--help"])
        assert result.exit_code == 0, (command, result.output)
        for option in (w for w in command[1:] if w.startswith("--")):
            assert option in result.output, (command, option)
