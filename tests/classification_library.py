"""The mini library with the real classification suite added, for tests of the classify task."""

from __future__ import annotations

from pathlib import Path

import yaml

from app.benchmark.loader import DEFAULT_DATA_DIR


def add_classification_suite(data_dir: Path) -> Path:
    """Appends the library's own classification suite (instruction and label definitions) to suites.yaml."""
    real = yaml.safe_load((DEFAULT_DATA_DIR / "suites.yaml").read_text())["suites"]["classification"]
    path = data_dir / "suites.yaml"
    suites = yaml.safe_load(path.read_text())
    suites["suites"]["classification"] = real
    path.write_text(yaml.safe_dump(suites, sort_keys=False))
    return data_dir
