"""The roles an API key can hold and how far each is trusted: the store checks a new key's role against them,
the API's schemas list them and the edge compares them."""

from __future__ import annotations

from typing import Literal, get_args

Role = Literal["admin", "member", "read-only"]
ROLES: tuple[Role, ...] = get_args(Role)
RANK: dict[str, int] = {"read-only": 0, "member": 1, "admin": 2}  # each may do all the one below may


def at_least(role: str, needed: Role) -> bool:
    """Whether a key with `role` may do what needs `needed`; an unknown role may do nothing."""
    return RANK.get(role, -1) >= RANK[needed]
