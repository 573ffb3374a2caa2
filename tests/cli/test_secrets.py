"""`helmbench secrets rotate` as an operator runs it: a JSON count of what was re-encrypted on stdout, exit 0;
a secret no configured key opens is an error on stderr, exit 1, and the secret is never printed."""

from __future__ import annotations

import json

import pytest
from cryptography.fernet import Fernet
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli.main import app as cli
from app.config import Settings
from app.main import create_app

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()


@pytest.fixture
def env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The CLI reads its settings from the environment: point it at the test's var dir and library."""
    monkeypatch.setenv("HELMBENCH_VAR_DIR", str(settings.var_dir))
    monkeypatch.setenv("HELMBENCH_DATA_DIR", str(settings.data_dir))
    monkeypatch.delenv("HELMBENCH_DATABASE_URL", raising=False)
    return monkeypatch


def _a_target_sealed_with(settings: Settings, key: str) -> None:
    with TestClient(create_app(settings.model_copy(update={"secret_keys": key}))) as api:
        admin = {"Authorization": "Bearer " + settings.admin_key_path.read_text().strip()}
        made = api.post(
            "/v1/targets",
            headers=admin,
            json={"name": "t", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key": "sk-keep-me"},
        )
        assert made.status_code == 201, made.text


def test_rotate_prints_the_counts_as_json(settings: Settings, env: pytest.MonkeyPatch) -> None:
    _a_target_sealed_with(settings, OLD)
    env.setenv("HELMBENCH_SECRET_KEYS", f"{NEW},{OLD}")
    result = CliRunner().invoke(cli, ["secrets", "rotate"])
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)["rotated"]
    assert counts["target.api_key_secret"] == 1
    again = CliRunner().invoke(
        cli, ["secrets", "rotate"]
    )  # already under the first key: rotating is harmless
    assert again.exit_code == 0 and json.loads(again.stdout)["rotated"]["target.api_key_secret"] == 1


def test_a_secret_no_key_opens_is_an_error_on_stderr_without_the_secret(
    settings: Settings, env: pytest.MonkeyPatch
) -> None:
    _a_target_sealed_with(settings, OLD)
    env.setenv("HELMBENCH_SECRET_KEYS", NEW)
    result = CliRunner().invoke(cli, ["secrets", "rotate"])
    assert result.exit_code == 1
    assert result.stdout == "" and result.stderr.startswith("error: ")
    assert "keep-me" not in result.output


def test_secrets_without_a_command_shows_rotate() -> None:
    result = CliRunner().invoke(cli, ["secrets"])
    assert "rotate" in result.output and "Re-encrypt stored secrets" in result.output
