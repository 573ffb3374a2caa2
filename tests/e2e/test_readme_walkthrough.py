"""The README walkthrough, pasted verbatim into bash against `helmbench serve`, ends on the leaderboard."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import httpx

from bench.ports import free_port, wait_http
from tests.e2e.conftest import HELMBENCH, running

ROOT = Path(__file__).resolve().parents[2]


def _walkthrough() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Walkthrough", 1)[1]
    return re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)  # type: ignore[union-attr]


def test_readme_walkthrough_runs_verbatim(tmp_path: Path) -> None:
    api_port, toy_port = free_port(), free_port()
    script = _walkthrough()
    assert "API=http://127.0.0.1:8000" in script and "9100" in script
    # Only the ports change, so the test can run beside a developer's `make run`.
    script = script.replace("127.0.0.1:8000", f"127.0.0.1:{api_port}").replace("9100", str(toy_port))
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {
        "HELMBENCH_VAR_DIR": str(tmp_path / "var"),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8,::1,localhost",
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
    }
    with running([HELMBENCH, "serve", "--port", str(api_port)], env, tmp_path / "api.log"):
        wait_http(f"http://127.0.0.1:{api_port}/healthz")
        result = subprocess.run(
            ["bash", "-c", script + "\nkill %1\n"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=240,
            env={**os.environ, **env},
        )
        assert result.returncode == 0, result.stderr[-2000:]
        assert "succeeded" in result.stdout
        board = httpx.get(f"http://127.0.0.1:{api_port}/v1/leaderboard").json()
    assert len(board["entries"]) == 1 and board["entries"][0]["target_name"] == "toy bot"
    tail = result.stdout[result.stdout.rindex('{\n    "benchmark_version"') :]
    assert json.loads(tail)["entries"][0]["evaluation_id"] == board["entries"][0]["evaluation_id"]
