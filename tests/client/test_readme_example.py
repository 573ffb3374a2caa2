"""The README's Python client example runs as printed, against the app and the toy bot on loopback ports."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from app.config import Settings
from app.example_target import create_example_target
from app.main import create_app
from tests.client.conftest import ORDINARY, SAFE, admin_key
from tests.webhooks.live_server import serving

README = Path(__file__).resolve().parents[2] / "README.md"


def example() -> str:
    section = README.read_text().split("### Python client", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the Python client section has an example"
    return found.group(1)


def test_the_readme_example_runs(settings: Settings) -> None:
    with serving(create_example_target()) as bot, serving(create_app(settings)) as url:
        code = example().replace("http://127.0.0.1:8000", url).replace("http://127.0.0.1:9100", bot)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(code, {"key": admin_key(settings), "transcripts": [SAFE, ORDINARY]})  # noqa: S102
    lines = printed.getvalue().splitlines()
    assert lines[-1].startswith("409 status ") and "already succeeded" in lines[-1]
    assert any(line.startswith("succeeded ") for line in lines)
