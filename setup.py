"""The build step that puts the top-level benchmark_data/ and migrations/ into the wheel.

The repository keeps them beside app/ (the design fixes that layout); an installed package must find them without
the clone. So after the normal build, build_py copies each into the build folder inside the package, where
app/bundled.py looks first. Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# Top-level folder -> its place in the wheel (app/bundled.py's PACKAGED says the same).
BUNDLED = {"benchmark_data": "app/benchmark_data", "migrations": "app/store/migrations"}


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        for source, target in BUNDLED.items():
            if not (ROOT / source).is_dir():
                raise FileNotFoundError(f"{ROOT / source}: the wheel must carry it (see MANIFEST.in)")
            copy = Path(self.build_lib, target)
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(ROOT / source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithData})
