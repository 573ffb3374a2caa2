"""Cheap exact pre-checks that skip a pattern when a text cannot hold a match.

Python's `re` finds a pattern that starts with a literal at memchr speed, but one that starts with `\\b`, a class
or a group is tried at every position (20–90 ns a character: 10–50 µs on an ordinary reply), even when nothing
matches. Most of those patterns need something most replies lack: a digit, a `|`, a word such as "specifics". A
gate looks for that first, with `in` or a literal-led pattern, and runs the pattern only when it is there. A gate
must be a necessary condition (every match of the pattern satisfies it), so a gated pattern finds exactly what the
pattern finds; the gates' tests hold each one to that.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

import ahocorasick

from app.grading.reading.leading_literals import Leads, has_digit

__all__ = ["Gated", "Literals", "has_digit"]


class Literals:
    """Whether any of a few literals occurs in a text: one Aho-Corasick pass that stops at the first."""

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = tuple(literals)
        self._automaton = ahocorasick.Automaton()
        for literal in self.literals:
            self._automaton.add_word(literal, literal)
        self._automaton.make_automaton()

    def __call__(self, text: str) -> bool:
        return next(self._automaton.iter(text), None) is not None


class Gated:
    """A pattern (compiled, or a `leading_literals.Leads`) run only on texts that pass `gate`, a necessary condition
    for any match."""

    def __init__(self, pattern: re.Pattern[str] | Leads, gate: Callable[[str], bool]) -> None:
        self.pattern = pattern
        self.gate = gate

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.pattern.search(text, pos) if self.gate(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if self.gate(text) else iter(())

    def findall(self, text: str) -> list:
        return self.pattern.findall(text) if self.gate(text) else []
