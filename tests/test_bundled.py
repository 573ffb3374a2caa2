"""The folders the package ships (library, migrations) are found in the package and declared as package data."""

from __future__ import annotations

import tomllib
from pathlib import Path

import app
from app.benchmark.loader import DEFAULT_DATA_DIR
from app.bundled import bundled
from app.config import Settings
from app.store.migrate import MIGRATIONS_DIR

ROOT = Path(__file__).resolve().parents[1]


def test_bundled_folders_lie_inside_the_package() -> None:
    package = Path(app.__file__).parent
    assert bundled("benchmark_data") == DEFAULT_DATA_DIR == package / "benchmark_data"
    assert package / "store" / "migrations" == MIGRATIONS_DIR
    assert (DEFAULT_DATA_DIR / "suites.yaml").is_file()
    assert (MIGRATIONS_DIR / "env.py").is_file() and (MIGRATIONS_DIR / "script.py.mako").is_file()


def test_data_dir_defaults_to_the_shipped_library_and_can_be_overridden(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HELMBENCH_DATA_DIR", raising=False)
    assert Settings().data_dir == DEFAULT_DATA_DIR
    monkeypatch.setenv("HELMBENCH_DATA_DIR", str(tmp_path))
    assert Settings().data_dir == tmp_path


def test_package_data_declares_every_shipped_file() -> None:
    """A file the globs miss would be absent from the wheel: another library version, a migration lacking."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package = Path(app.__file__).parent
    declared = {path for glob in setuptools["package-data"]["app"] for path in package.glob(glob)}
    for folder in (bundled("benchmark_data"), bundled("store", "migrations")):
        shipped = {p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        assert shipped
        assert shipped <= declared, sorted(str(p.relative_to(package)) for p in shipped - declared)
