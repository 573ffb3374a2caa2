"""The one table of item kinds: a suite's `kind` name → the ItemKind that plans, plays, grades and reports it.

The built-in kinds are loaded on first use, not at import: the benchmark's schema and planner look kinds up, and
the kinds themselves stand on the benchmark, so an import here at module level would be circular.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.kinds.base import ItemKind

_KINDS: dict[str, ItemKind] = {}
_loaded = False


def _builtins() -> dict[str, ItemKind]:
    global _loaded
    if not _loaded:
        from app.kinds.classification import CLASSIFICATION
        from app.kinds.scripted import SCRIPTED
        from app.kinds.simulated import SIMULATED
        from app.kinds.single_reply import SINGLE_REPLY

        for kind in (SINGLE_REPLY, SCRIPTED, SIMULATED, CLASSIFICATION):
            _KINDS.setdefault(kind.name, kind)
        _loaded = True
    return _KINDS


def register(kind: ItemKind) -> None:
    """Adds a kind, so a suite may name it; a name already taken is refused."""
    kinds = _builtins()
    if kind.name in kinds:
        raise ValueError(f"an item kind named {kind.name!r} is registered already")
    kinds[kind.name] = kind


def unregister(name: str) -> None:
    """Removes a kind that `register` added."""
    _builtins().pop(name, None)


def kind_named(name: str) -> ItemKind:
    """The kind a suite names; a KeyError names the unknown one."""
    return _builtins()[name]


def kind_names() -> list[str]:
    return list(_builtins())


def conversation_kinds() -> frozenset[str]:
    """The kinds whose items are whole conversations, by the name stored with an item."""
    return frozenset(name for name, kind in _builtins().items() if kind.conversation)
