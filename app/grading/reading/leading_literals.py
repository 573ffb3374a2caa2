"""A pattern tried only where one of its leading literals starts, found for all of them in one pass.

Python's `re` skips ahead quickly only for a pattern that opens with a literal or a character class. Our lexicons open
with `\\b`, a lookbehind or a group, so `re` runs its whole matcher at every position of a reply: 20–90 ns a
character, tens of microseconds a reply, even when no match is there. Yet every match of such a pattern starts with
one of a few literals ("die", "dying", "suicid", "kill myself" …) or with a digit, which the regex parser can tell at
import. `Leads` finds where those literals start with one Aho-Corasick pass (in C), and the digits with `\\d`, and
asks `pattern.match` there only.

Exact: `match(text, i)` sees the text before `i` as `search` does (`\\b` and lookbehinds read it), every match
starts with a leading literal, so the first candidate at or after `pos` that matches is what `search(text, pos)`
finds; `finditer` repeats that from each match's end (matches are never empty: each starts with a literal), as
`re.finditer` does. A pattern without such literals (one that may start with a class, a wildcard or nothing, or
one that ignores case) is rejected at import, so the caller keeps the plain pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import ahocorasick

from app.grading.reading.text import source_of

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
_ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)
_MAX_LITERALS = 5000
_MAX_TAILS = 512


class _NoLead(Exception):
    """Some match may start with something other than a literal."""


class _TooMany(_NoLead):
    """More literals than an automaton is worth."""


# Stands for "a digit" among the leading literals (no literal is empty): "\\d+ mg" leads with any digit.
_DIGIT_LEAD = ""
_DIGIT = re.compile(r"\d")
_ZERO, _NINE = ord("0"), ord("9")


def has_digit(text: str) -> bool:
    """Whether `text` holds a digit as `\\d` reads one (any Unicode decimal): ten memchr scans, and the regex only
    for text that is not ASCII."""
    # (Written out: a generator over the ten digits cost four times the scans.)
    if (
        "0" in text
        or "1" in text
        or "2" in text
        or "3" in text
        or "4" in text
        or "5" in text
        or "6" in text
        or "7" in text
        or "8" in text
        or "9" in text
    ):
        return True
    return not text.isascii() and _DIGIT.search(text) is not None


def _digits_only(items: list) -> bool:
    """Whether a character class matches digits only ("\\d", "[2-9]"), so a digit's position may start a match."""
    return bool(items) and all(
        (op is sre.CATEGORY and av is sre.CATEGORY_DIGIT)
        or (op is sre.LITERAL and _ZERO <= av <= _NINE)
        or (op is sre.RANGE and _ZERO <= av[0] <= av[1] <= _NINE)
        for op, av in items
    )


def _leads(items: list, rest: list, extend: bool = True) -> set[str]:
    """Literals one of which every match of `items` followed by `rest` starts with."""
    seq = items + rest
    run: list[str] = []
    for i, (op, av) in enumerate(seq):
        if op is sre.LITERAL:
            run.append(chr(av))
            continue
        if run and not extend:
            return {"".join(run)}
        if run:  # carry on past a group: "d(?:ie|ying)" leads with "die" and "dying", not "d"
            head = "".join(run)
            for longest in (True, False):  # whole continuations, or if too many, their first literal runs
                try:
                    tails = _leads(seq[i:], [], longest)
                except _NoLead:
                    return {head}
                if len(tails) <= _MAX_TAILS:
                    return {head + tail for tail in tails}
            return {head}
        if op in _ZERO_WIDTH:
            continue  # consumes nothing: the match still starts with what follows
        if op is sre.SUBPATTERN:
            if av[1] & re.IGNORECASE:
                raise _NoLead
            return _leads(list(av[3]), seq[i + 1 :], extend)
        if op is sre.BRANCH:
            found: set[str] = set()
            for branch in av[1]:
                found |= _leads(list(branch), seq[i + 1 :], extend)
                if len(found) > _MAX_LITERALS:
                    raise _TooMany
            return found
        if op is sre.IN and _digits_only(av):
            return {_DIGIT_LEAD}  # found by its own pass: a digit is no literal
        if op in _REPEATS:
            low, high, item = av
            if high == 0:
                continue
            first = _leads(list(item), [], extend)
            return first if low >= 1 else first | _leads([], seq[i + 1 :], extend)
        raise _NoLead
    if run:
        return {"".join(run)}
    raise _NoLead  # the rest may match the empty string


def leading_literals(source: str, flags: int = 0) -> frozenset[str] | None:
    """Literals one of which every match of the pattern `source` starts with; None when there is no such set."""
    if flags & re.IGNORECASE:
        return None
    items = list(sre_parse.parse(source, flags))
    for extend in (True, False):  # the longest literals, or if they are too many, the shortest
        try:
            return frozenset(_leads(items, [], extend))
        except _TooMany:
            continue
        except _NoLead:
            return None
    return None


class Leads:
    """`pattern`, searched only where one of its leading literals starts (see the module's docstring)."""

    def __init__(self, pattern: re.Pattern[str], literals: frozenset[str] | None = None) -> None:
        """`literals`: the pattern's leading literals when the caller knows them (an alternation's are its
        alternatives' together); read from the pattern otherwise."""
        # A word pattern's source (its alternatives before `text.grouped` put them under their first letters, with
        # the same matches) gives whole words rather than those letters.
        literals = literals or leading_literals(source_of(pattern), pattern.flags)
        if not literals:
            raise ValueError(f"pattern has no leading literals: {pattern.pattern[:80]!r}")
        self.pattern = pattern
        self.flags = pattern.flags
        self.match = pattern.match
        self._digits = _DIGIT_LEAD in literals
        self._automaton = ahocorasick.Automaton()
        for literal in literals - {_DIGIT_LEAD}:
            self._automaton.add_word(literal, len(literal) - 1)
        self._literals = len(self._automaton) > 0
        if self._literals:
            self._automaton.make_automaton()
        self._iter = self._automaton.iter

    def _starts(self, text: str, pos: int) -> list[int]:
        """Where a leading literal (or a digit) starts at or after `pos`, in order. Most replies hold none or
        one, so the list is sorted only when it holds more (a set per call cost more than the search)."""
        # (The automaton reads from `pos` on: a literal that starts before it is not reported.)
        starts = [end - back for end, back in self._iter(text, pos)] if self._literals else []
        if self._digits and has_digit(text):  # (the regex reads a whole text to find none)
            starts += [m.start() for m in _DIGIT.finditer(text, pos)]
        if len(starts) > 1:
            starts = sorted(set(starts))
        return starts

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        end = len(text) if endpos is None else endpos
        for start in self._starts(text, pos):
            m = self.match(text, start, end)
            if m is not None:
                return m
        return None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        after = 0
        for start in self._starts(text, 0):
            if start >= after:
                m = self.match(text, start)
                if m is not None:
                    after = m.end()
                    yield m

    def findall(self, text: str) -> list[str]:
        if self.pattern.groups:
            raise TypeError("Leads.findall reads whole matches only")
        return [m.group() for m in self.finditer(text)]
