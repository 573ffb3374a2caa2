"""Apply Alembic migrations programmatically (`helmbench db upgrade`, and `serve` on the embedded default)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.bundled import bundled
from app.config import Settings

MIGRATIONS_DIR = bundled("migrations")


def alembic_config(settings: Settings) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", settings.sqlalchemy_url.replace("%", "%%"))
    return config


def upgrade(settings: Settings, revision: str = "head") -> None:
    if settings.sqlalchemy_url.startswith("sqlite"):
        settings.var_dir.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(settings), revision)
