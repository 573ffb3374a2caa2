"""Secrets at rest: sealed with the first key, readable with any, rotated by `helmbench secrets rotate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlmodel import Session
from typer.testing import CliRunner

from app.cli.main import app as cli
from app.config import Settings
from app.main import create_app
from app.security.secrets import SecretBox, secret_box_for
from app.store.db import make_engine
from tests.security.conftest import bearer

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()


def test_the_first_key_encrypts_and_any_key_decrypts() -> None:
    sealed = SecretBox([OLD]).encrypt("sk-live-1")
    both = SecretBox([NEW, OLD])
    assert both.decrypt(sealed) == "sk-live-1"
    resealed = both.encrypt("sk-live-2")
    assert SecretBox([NEW]).decrypt(resealed) == "sk-live-2"
    with pytest.raises(ValueError, match="cannot be decrypted") as caught:
        SecretBox([NEW]).decrypt(sealed)
    assert "sk-live" not in str(caught.value)


def _register(settings: Settings) -> str:
    with TestClient(create_app(settings)) as client:
        admin = bearer(settings.admin_key_path.read_text().strip())
        made = client.post(
            "/v1/targets",
            headers=admin,
            json={
                "name": "t",
                "base_url": "http://127.0.0.1:9/v1",
                "model": "m",
                "api_key": "sk-rotate-me",
                "headers": {"X-Org": "org-rotate-me"},
            },
        )
        assert made.status_code == 201
        assert "rotate-me" not in made.text and made.json()["has_api_key"] is True
        assert made.json()["header_names"] == ["X-Org"]
        return made.json()["id"]


def _stored(settings: Settings, target_id: str) -> tuple[str, str]:
    engine = make_engine(settings)
    with Session(engine) as session:
        row = session.execute(
            text("SELECT api_key_secret, headers_secret FROM target WHERE id = :i"), {"i": target_id}
        ).one()
    engine.dispose()
    return row[0], row[1]


def test_rotate_reencrypts_every_stored_secret_with_the_first_key(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = settings.model_copy(update={"secret_keys": OLD})
    target_id = _register(old)
    sealed_key, sealed_headers = _stored(old, target_id)
    assert "rotate-me" not in sealed_key + sealed_headers

    env = {
        "HELMBENCH_VAR_DIR": str(settings.var_dir),
        "HELMBENCH_DATA_DIR": str(settings.data_dir),
        "HELMBENCH_SECRET_KEYS": f"{NEW},{OLD}",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("HELMBENCH_DATABASE_URL", raising=False)
    result = CliRunner().invoke(cli, ["secrets", "rotate"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rotated"]["target.api_key_secret"] >= 1

    new_only = secret_box_for(settings.model_copy(update={"secret_keys": NEW}))
    rotated_key, rotated_headers = _stored(settings, target_id)
    assert rotated_key != sealed_key
    assert new_only.decrypt(rotated_key) == "sk-rotate-me"
    assert new_only.decrypt_json(rotated_headers) == {"X-Org": "org-rotate-me"}

    monkeypatch.setenv("HELMBENCH_SECRET_KEYS", Fernet.generate_key().decode())  # the old keys forgotten
    failed = CliRunner().invoke(cli, ["secrets", "rotate"])
    assert failed.exit_code == 1 and "cannot be decrypted" in failed.output
    assert "rotate-me" not in failed.output


def test_without_configured_keys_the_embedded_default_keeps_one_file_0600(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path / "var", secret_keys=None)
    first = secret_box_for(settings).encrypt("x")
    assert secret_box_for(settings).decrypt(first) == "x"
    assert (tmp_path / "var" / "secret.key").stat().st_mode & 0o777 == 0o600
