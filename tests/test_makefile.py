"""The Makefile installs what each command needs, and its stamps stay right when a developer switches commands.

Make runs for real in a copy, with a venv whose tools only log what they were asked: the uv lines say what was
installed, and when nothing was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("python", "uv", "helmbench", "ruff"):
        script = bin_dir / tool
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{tmp_path}/calls.log"\n')
        script.chmod(0o755)
    return tmp_path


def make(clone: Path, target: str) -> list[str]:
    """Run `make target` in the copy; the installs it made (the `-e` argument of each uv call)."""
    log = clone / "calls.log"
    log.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    subprocess.run(["make", "-s", target], cwd=clone, env=env, check=True, capture_output=True)
    calls = log.read_text().splitlines() if log.exists() else []
    return [c.split(" -e ", 1)[1] for c in calls if c.startswith("uv pip install")]


def test_run_installs_the_runtime_alone(clone: Path) -> None:
    assert make(clone, "run") == ["."]
    assert make(clone, "run") == []  # stamped: the next start installs nothing


def test_test_and_bench_add_their_extras_and_keep_what_is_there(clone: Path) -> None:
    assert make(clone, "run") == ["."]
    assert make(clone, "lint") == [".[dev]"]
    assert make(clone, "run") == []  # the dev venv holds the runtime too
    assert make(clone, "bench") == [
        ".[bench,dev]"
    ]  # one resolution for both: bench's pins cannot break dev's
    assert make(clone, "install") == []
    assert make(clone, "run") == []


def test_a_changed_pyproject_installs_again_with_every_extra_the_venv_has(clone: Path) -> None:
    assert make(clone, "install") == [".[dev]"]
    for stamp in (clone / ".venv").glob(".installed-*"):
        os.utime(stamp, (1, 1))  # older than pyproject.toml, as after an edit of it
    assert make(clone, "run") == [".[dev]"]
    assert make(clone, "install") == []
