"""The placeholders of an http_json target's request template: the API's schemas check a template when a target is
registered and the adapter fills it on each call, so the grammar lives below both."""

from __future__ import annotations

import re
from typing import Any

PLACEHOLDERS = ("messages", "turns", "system", "last_user", "model", "max_tokens")
TOKEN = re.compile(r"\{\{(\w+)\}\}")


def unknown_placeholders(template: Any) -> set[str]:
    """Placeholders in a template that the http_json adapter does not fill (checked at registration)."""
    found: set[str] = set()
    if isinstance(template, dict):
        for value in template.values():
            found |= unknown_placeholders(value)
    elif isinstance(template, list):
        for value in template:
            found |= unknown_placeholders(value)
    elif isinstance(template, str):
        found |= {name for name in TOKEN.findall(template) if name not in PLACEHOLDERS}
    return found
