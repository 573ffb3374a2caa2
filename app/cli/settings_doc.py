"""Render the settings table for the README from the Settings class, so the docs cannot drift."""

from __future__ import annotations

from app.config import Settings


def settings_table() -> str:
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = field.default if field.default is not None else "unset"
        if name == "data_dir":
            default = "benchmark_data/ of the install"
        rows.append(f"| `HELMBENCH_{name.upper()}` | `{default}` | {field.description or ''} |")
    return "\n".join(rows)


START, END = "<!-- settings-table:start -->", "<!-- settings-table:end -->"


def with_settings_table(readme: str) -> str:
    """The README text with its settings block replaced by the current table."""
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{settings_table()}\n{END}{tail}"


if __name__ == "__main__":  # `make docs`
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "README.md"
    path.write_text(with_settings_table(path.read_text()))
