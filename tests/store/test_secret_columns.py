"""Encrypted columns: every `_secret` column is found, rotation rewrites each stored value, and a failure part
way leaves every value as it was."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from app.store.models import Target, Webhook
from app.store.secret_columns import rewrite_secrets, secret_columns
from tests.store.conftest import seed


def test_every_encrypted_column_is_listed() -> None:
    assert {
        ("target", "api_key_secret"),
        ("target", "headers_secret"),
        ("evaluation", "judge_api_key_secret"),
        ("evaluation", "simulator_api_key_secret"),
        ("webhook", "secret_secret"),
    } <= set(secret_columns())
    assert all(column.endswith("_secret") for _, column in secret_columns())


def _seed_secrets(engine: Engine) -> tuple[str, str]:
    team, target, _ = seed(engine)
    with Session(engine) as session:
        row = session.get(Target, target)
        assert row is not None
        row.api_key_secret = "old:key"
        hook = Webhook(team_id=team, url="https://example.org/h", signing_secret="old:hook")
        session.add_all([row, hook])
        session.commit()
        return target, hook.id


def test_rotation_rewrites_each_stored_secret_and_names_where_never_what(sqlite: Engine) -> None:
    target, hook = _seed_secrets(sqlite)
    seen: list[str] = []

    def rewrite(where: str, token: str) -> str:
        seen.append(where)
        assert "old:" not in where
        return token.replace("old:", "new:")

    counts = rewrite_secrets(engine=sqlite, rewrite=rewrite)
    assert counts["target.api_key_secret"] == 1 and counts["webhook.secret_secret"] == 1
    assert counts["target.headers_secret"] == 0  # an empty column is left empty
    assert f"target.api_key_secret of row {target}" in seen
    with Session(sqlite) as session:
        assert session.get(Target, target).api_key_secret == "new:key"  # type: ignore[union-attr]
        assert session.get(Webhook, hook).signing_secret == "new:hook"  # type: ignore[union-attr]


def test_a_failed_rotation_leaves_every_secret_as_it_was(sqlite: Engine) -> None:
    target, hook = _seed_secrets(sqlite)

    def rewrite(where: str, token: str) -> str:
        if where.startswith("webhook."):
            raise ValueError("cannot decrypt")
        return "new"

    with pytest.raises(ValueError):
        rewrite_secrets(engine=sqlite, rewrite=rewrite)
    with Session(sqlite) as session:
        assert session.get(Target, target).api_key_secret == "old:key"  # type: ignore[union-attr]
        assert session.get(Webhook, hook).signing_secret == "old:hook"  # type: ignore[union-attr]
