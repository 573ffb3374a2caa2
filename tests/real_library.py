"""Runs through the API on the embedded default with the real library: the settings such a test starts from and
every result of an evaluation, page by page, as a client reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.benchmark.loader import DEFAULT_DATA_DIR
from app.config import Settings


def real_library_settings(var_dir: Path, **overrides: Any) -> Settings:
    """The embedded default (SQLite, no Redis) on the shipped library; loopback targets allowed, no retries, so a
    bot's answer is graded as it came."""
    options: dict[str, Any] = {
        "var_dir": var_dir,
        "data_dir": DEFAULT_DATA_DIR,
        "target_allowlist": "127.0.0.0/8",
        "database_url": None,
        "redis_url": None,
        "max_retries": 0,
    }
    return Settings(**(options | overrides))


def all_results(client: TestClient, evaluation_id: str) -> list[dict[str, Any]]:
    """Every result row of an evaluation, following `next_cursor` to the end."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = client.get(
            f"/v1/evaluations/{evaluation_id}/results",
            params={"limit": 100, **({"cursor": cursor} if cursor else {})},
        ).json()
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items
