"""Settings from the environment: the README's defaults when nothing is set, a bad value refused naming the
setting, settings that contradict each other refused naming both."""

from __future__ import annotations

import os

import pytest
from pydantic import ValidationError

from app.config import Settings


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No HELMBENCH_ variable from the shell or CI leaks into the settings under test."""
    for name in list(os.environ):
        if name.startswith("HELMBENCH_"):
            monkeypatch.delenv(name)
    return monkeypatch


def test_with_nothing_set_the_defaults_are_the_readmes_embedded_ones(clean_env: pytest.MonkeyPatch) -> None:
    settings = Settings()
    assert (settings.target_concurrency, settings.max_retries, settings.shard_size) == (16, 4, 500)
    assert settings.embedded and settings.url == "http://127.0.0.1:8000"
    assert settings.sqlalchemy_url == "sqlite:///var/helmbench.db"
    assert settings.admin_key_path.as_posix() == "var/admin.key"


def test_a_value_out_of_range_is_refused_naming_the_setting(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HELMBENCH_TARGET_CONCURRENCY", "0")
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert [error["loc"] for error in refused.value.errors()] == [("target_concurrency",)]
    clean_env.setenv("HELMBENCH_TARGET_CONCURRENCY", "")  # empty counts as unset
    assert Settings().target_concurrency == 16


def test_contradicting_settings_are_refused_naming_both(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HELMBENCH_JUDGES", '[{"base_url": "https://j.example.com/v1", "model": "j-1"}]')
    clean_env.setenv("HELMBENCH_JUDGE_MODEL", "j-2")
    with pytest.raises(ValidationError, match="HELMBENCH_JUDGES or HELMBENCH_JUDGE_BASE_URL"):
        Settings()
    with pytest.raises(ValidationError, match="HELMBENCH_SCHEDULER_CLOCK_EPOCH"):
        Settings(judges=None, judge_model=None, scheduler_clock_rate=60.0)


def test_a_plain_postgresql_url_gets_the_psycopg_driver(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HELMBENCH_DATABASE_URL", "postgresql://app@db:5432/helm")
    assert Settings().sqlalchemy_url == "postgresql+psycopg://app@db:5432/helm"
