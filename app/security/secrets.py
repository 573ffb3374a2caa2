"""Target and judge credentials are encrypted at rest with Fernet; several keys allow rotation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

if TYPE_CHECKING:
    from app.config import Settings


class SecretBox:
    """Encrypts with the first key and decrypts with any, so keys rotate without a migration."""

    def __init__(self, keys: list[str]):
        if not keys:
            raise ValueError("at least one Fernet key is needed")
        self._fernet = MultiFernet([Fernet(k.encode()) for k in keys])

    def encrypt(self, plain: str) -> str:
        return self._fernet.encrypt(plain.encode()).decode()

    def decrypt(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode()).decode()
        except InvalidToken as exc:
            raise ValueError("a stored secret cannot be decrypted with the configured keys") from exc

    def encrypt_json(self, value: object) -> str:
        return self.encrypt(json.dumps(value))

    def decrypt_json(self, token: str) -> object:
        return json.loads(self.decrypt(token))

    def rotate(self, token: str) -> str:
        return self._fernet.rotate(token.encode()).decode()


def load_or_create_key_file(path: Path) -> str:
    """The embedded default keeps its key beside the database (mode 0600); production sets it explicitly."""
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Fernet.generate_key().decode()
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(key + "\n", encoding="utf-8")
    return key


def secret_box_for(settings: Settings) -> SecretBox:
    """The configured Fernet keys, or the embedded default's generated one."""
    if settings.secret_keys:
        return SecretBox([k.strip() for k in settings.secret_keys.split(",") if k.strip()])
    return SecretBox([load_or_create_key_file(settings.var_dir / "secret.key")])
