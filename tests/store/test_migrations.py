"""Migrations build, on an empty database of each kind, exactly the schema the models describe."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sqlmodel import SQLModel

import app.store.models  # noqa: F401
from app.config import Settings
from app.store.migrate import upgrade


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()


def test_sqlite_migrations_match_models(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path, database_url=None)
    upgrade(settings)
    assert _diff(settings.sqlalchemy_url) == []
    tables = set(inspect(create_engine(settings.sqlalchemy_url)).get_table_names())
    assert {"team", "apikey", "target", "evaluation", "evaluation_item"} <= tables


def test_upgrade_twice_is_harmless(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path, database_url=None)
    upgrade(settings)
    upgrade(settings)
    assert _diff(settings.sqlalchemy_url) == []


@pytest.mark.postgres
def test_postgres_migrations_match_models(postgres_url: str, tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path, database_url=postgres_url)
    assert settings.sqlalchemy_url.startswith("postgresql+psycopg://")
    upgrade(settings)
    assert _diff(settings.sqlalchemy_url) == []
