"""Scrub known credentials out of text we keep or show (errors, logs) when a remote end echoes them back."""

from __future__ import annotations

from collections.abc import Iterable

MASK = "[redacted]"
MIN_SECRET_LEN = 6  # shorter values would mask ordinary words


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every occurrence of each secret with a mask; apply before truncating, or a prefix survives."""
    for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LEN}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
