"""The library and the migrations: the top-level folders in a clone, the packaged copies in an installed wheel."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import app.bundled
from app.benchmark.loader import DEFAULT_DATA_DIR
from app.bundled import bundled
from app.config import Settings
from app.store.migrate import MIGRATIONS_DIR

ROOT = Path(__file__).resolve().parents[1]


def test_a_clone_uses_the_top_level_folders() -> None:
    """The design fixes the layout: benchmark_data/ and migrations/ beside app/, none inside it."""
    assert bundled("benchmark_data") == DEFAULT_DATA_DIR == ROOT / "benchmark_data"
    assert bundled("migrations") == MIGRATIONS_DIR == ROOT / "migrations"
    assert (DEFAULT_DATA_DIR / "suites.yaml").is_file()
    assert (MIGRATIONS_DIR / "env.py").is_file() and (MIGRATIONS_DIR / "script.py.mako").is_file()
    assert not (ROOT / "app" / "benchmark_data").exists()
    assert not (ROOT / "app" / "store" / "migrations").exists()


@pytest.fixture
def package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An installed `app` package, as importlib.resources would name it."""
    monkeypatch.setattr(app.bundled, "files", lambda name: tmp_path / name)
    return tmp_path / "app"


def test_an_installed_wheel_uses_its_packaged_copies(package: Path) -> None:
    (package / "benchmark_data").mkdir(parents=True)
    (package / "benchmark_data" / "suites.yaml").write_text("suites: {}\n")
    (package / "store" / "migrations").mkdir(parents=True)
    (package / "store" / "migrations" / "env.py").write_text("")
    assert bundled("benchmark_data") == package / "benchmark_data"
    assert bundled("migrations") == package / "store" / "migrations"


def test_a_folder_of_bytecode_alone_is_no_copy(package: Path) -> None:
    (package / "store" / "migrations" / "__pycache__").mkdir(parents=True)
    assert bundled("migrations") == ROOT / "migrations"
    assert bundled("benchmark_data") == ROOT / "benchmark_data"


def test_data_dir_defaults_to_the_library_and_can_be_overridden(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HELMBENCH_DATA_DIR", raising=False)
    assert Settings().data_dir == DEFAULT_DATA_DIR
    monkeypatch.setenv("HELMBENCH_DATA_DIR", str(tmp_path))
    assert Settings().data_dir == tmp_path


def test_the_build_copies_each_folder_where_bundled_looks() -> None:
    """setup.py's BUNDLED and app/bundled.py's PACKAGED name the same places (the wheel test proves the copy)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    (mapping,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["BUNDLED"]
    ]
    copies = ast.literal_eval(mapping)
    assert copies == {name: "/".join(("app", *parts)) for name, parts in app.bundled.PACKAGED.items()}
    assert all((ROOT / name).is_dir() for name in copies)
