"""The README documents every setting, exactly as the Settings class defines it (`make docs` refreshes it)."""

from __future__ import annotations

from pathlib import Path

from app.cli.settings_doc import with_settings_table
from app.config import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_settings_table_is_current() -> None:
    text = README.read_text()
    assert with_settings_table(text) == text, "run `make docs` to refresh the settings table in README.md"
    for name in Settings.model_fields:
        assert f"`HELMBENCH_{name.upper()}`" in text
