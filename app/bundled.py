"""Folders that ship inside the package (the benchmark library, the migrations), found in one place.

A wheel holds them as package data, so `helmbench serve` and `helmbench grade` work from any folder after a plain
`pip install`; a clone and an editable install find the same files through the same call.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def bundled(*parts: str) -> Path:
    """The on-disk path of a file or folder shipped in the `app` package (YAML and Alembic need real paths)."""
    resource = files("app").joinpath(*parts)
    if not isinstance(resource, Path):
        raise RuntimeError(f"helmbench must be installed as files, not zipped: {resource} is not on disk")
    return resource
