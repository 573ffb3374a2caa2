"""Key rotation: re-encrypt every stored secret with the first configured key, so old keys can be dropped."""

from __future__ import annotations

from cryptography.fernet import InvalidToken
from sqlalchemy import Engine, select, update
from sqlmodel import SQLModel

from app.security.secrets import SecretBox
from app.store import models as _models  # noqa: F401 - every table registered in the metadata


def secret_columns() -> list[tuple[str, str]]:
    """(table, column) of every encrypted column: by convention their names end in `_secret`."""
    return [
        (table.name, column.name)
        for table in SQLModel.metadata.sorted_tables
        for column in table.columns
        if column.name.endswith("_secret")
    ]


def rotate_secrets(*, engine: Engine, secrets: SecretBox) -> dict[str, int]:
    """Re-encrypts each stored secret with the first key; returns counts per table.column.

    Raises ValueError (naming no secret) if a value cannot be decrypted with any configured key."""
    counts: dict[str, int] = {}
    with engine.begin() as conn:
        for table_name, column_name in secret_columns():
            table = SQLModel.metadata.tables[table_name]
            column = table.c[column_name]
            pk = list(table.primary_key.columns)[0]
            rows = conn.execute(select(pk, column).where(column.is_not(None))).all()
            for ident, token in rows:
                try:
                    fresh = secrets.rotate(token)
                except InvalidToken:  # the key that sealed it is not configured
                    where = f"{table_name}.{column_name} of row {ident}"
                    raise ValueError(
                        f"{where}: cannot be decrypted with the configured keys; "
                        "list the old key after the new one and retry"
                    ) from None
                conn.execute(update(table).where(pk == ident).values({column_name: fresh}))
            counts[f"{table_name}.{column_name}"] = len(rows)
    return counts
