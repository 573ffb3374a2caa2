"""Key rotation: every stored secret re-sealed with the first configured key, so the old key can be dropped; a
secret no configured key opens stops the rotation with its column and row named, and nothing half-done."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import Engine
from sqlmodel import Session, SQLModel, select

from app.config import Settings
from app.security.rotate import rotate_secrets
from app.security.secrets import SecretBox
from app.store.db import make_engine
from app.store.models import Target, Team
from app.store.secret_columns import secret_columns

OLD, NEW, LOST = (Fernet.generate_key().decode() for _ in range(3))


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = make_engine(Settings(var_dir=tmp_path))
    SQLModel.metadata.create_all(made)
    yield made
    made.dispose()


def add_target(engine: Engine, name: str, box: SecretBox, api_key: str) -> str:
    with Session(engine) as session:
        team = session.exec(select(Team)).first() or Team(name="team")
        session.add(team)
        session.flush()
        target = Target(
            team_id=team.id,
            name=name,
            kind="openai",
            base_url="http://127.0.0.1:9/v1",
            model="m",
            api_key_secret=box.encrypt(api_key),
            headers_secret=box.encrypt_json({"X-Org": f"org-of-{name}"}),
        )
        session.add(target)
        session.commit()
        return target.id


def stored(engine: Engine) -> dict[str, tuple[str | None, str | None]]:
    with Session(engine) as session:
        return {t.id: (t.api_key_secret, t.headers_secret) for t in session.exec(select(Target))}


def test_every_secret_is_resealed_with_the_first_key_and_the_old_one_can_go(engine: Engine) -> None:
    ids = [add_target(engine, name, SecretBox([OLD]), f"sk-{name}") for name in ("a", "b")]
    before = stored(engine)
    counts = rotate_secrets(engine=engine, secrets=SecretBox([NEW, OLD]))
    assert counts["target.api_key_secret"] == counts["target.headers_secret"] == 2
    assert set(counts) == {f"{table}.{column}" for table, column in secret_columns()}
    new_only = SecretBox([NEW])
    after = stored(engine)
    for target_id, name in zip(ids, ("a", "b"), strict=True):
        api_key, headers = after[target_id]
        assert api_key != before[target_id][0] and new_only.decrypt(api_key or "") == f"sk-{name}"
        assert new_only.decrypt_json(headers or "") == {"X-Org": f"org-of-{name}"}


def test_a_secret_no_key_opens_stops_the_rotation_named_and_nothing_is_half_done(engine: Engine) -> None:
    add_target(engine, "a", SecretBox([OLD]), "sk-readable")
    lost = add_target(engine, "b", SecretBox([LOST]), "sk-sealed-with-a-lost-key")
    before = stored(engine)
    with pytest.raises(ValueError) as refused:
        rotate_secrets(engine=engine, secrets=SecretBox([NEW, OLD]))
    message = str(refused.value)
    assert f"target.api_key_secret of row {lost}" in message and "list the old key" in message
    assert "sk-" not in message
    assert stored(engine) == before, "one transaction: the readable row was not rewritten either"


def test_with_nothing_stored_rotation_is_a_no_op(engine: Engine) -> None:
    counts = rotate_secrets(engine=engine, secrets=SecretBox([NEW]))
    assert counts and set(counts.values()) == {0}
