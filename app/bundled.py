"""The benchmark library and the migrations, found in one place.

The repository keeps them at its top level (`benchmark_data/`, `migrations/`). The wheel's build (setup.py) copies
them into the package as `app/benchmark_data/` and `app/store/migrations/`, so `helmbench serve` and `helmbench
grade` work from any folder after a plain `pip install`. An installed wheel finds that packaged copy; a clone and an
editable install have none and find the top-level folder.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

# Where the build puts each top-level folder inside the `app` package (setup.py's BUNDLED says the same).
PACKAGED = {"benchmark_data": ("benchmark_data",), "migrations": ("store", "migrations")}


def bundled(name: str) -> Path:
    """The on-disk path of `benchmark_data` or `migrations` (YAML and Alembic need real paths)."""
    packaged = files("app").joinpath(*PACKAGED[name])
    # A folder holding nothing but __pycache__ is what an old in-package layout leaves behind, not a copy.
    if packaged.is_dir() and any(entry.name != "__pycache__" for entry in packaged.iterdir()):
        if not isinstance(packaged, Path):
            raise RuntimeError(f"helmbench must be installed as files, not zipped: {packaged} is not on disk")
        return packaged
    return Path(__file__).resolve().parents[1] / name
