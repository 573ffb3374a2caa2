"""Roles: admin above member above read-only; an unknown role is trusted with nothing."""

from __future__ import annotations

import pytest

from app.store.roles import ROLES, at_least


def test_the_roles_a_key_can_hold() -> None:
    assert set(ROLES) == {"admin", "member", "read-only"}


@pytest.mark.parametrize(
    ("role", "allowed"),
    [
        ("admin", {"admin", "member", "read-only"}),
        ("member", {"member", "read-only"}),
        ("read-only", {"read-only"}),
    ],
)
def test_each_role_may_do_what_the_ones_below_may_and_no_more(role: str, allowed: set[str]) -> None:
    assert {needed for needed in ROLES if at_least(role, needed)} == allowed


def test_an_unknown_role_may_do_nothing() -> None:
    assert not any(at_least("owner", needed) for needed in ROLES)
    assert not at_least("", "read-only")
