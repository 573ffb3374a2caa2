"""Key rotation: re-encrypt every stored secret with the first configured key, so old keys can be dropped."""

from __future__ import annotations

from cryptography.fernet import InvalidToken
from sqlalchemy import Engine

from app.security.secrets import SecretBox
from app.store.secret_columns import rewrite_secrets


def rotate_secrets(*, engine: Engine, secrets: SecretBox) -> dict[str, int]:
    """Re-encrypts each stored secret with the first key; returns counts per table.column.

    Raises ValueError (naming no secret) if a value cannot be decrypted with any configured key."""

    def rotate(where: str, token: str) -> str:
        try:
            return secrets.rotate(token)
        except InvalidToken:  # the key that sealed it is not configured
            raise ValueError(
                f"{where}: cannot be decrypted with the configured keys; list the old key after the new one and retry"
            ) from None

    return rewrite_secrets(engine=engine, rewrite=rotate)
