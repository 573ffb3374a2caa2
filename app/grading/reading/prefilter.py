"""Big alternations tried only with the alternatives that can match the text at hand.

Python's engine tries every alternative of a pattern at every position of a reply, so a pattern of a few hundred
alternatives costs a tenth of a millisecond on a long reply even when nothing matches. Most alternatives need a
literal word ("railing", "prescription", "too late") that most replies lack. `Alternation` finds, once at import,
a literal each alternative needs, and at match time reads the text once with an Aho-Corasick automaton over all
of them; only the alternatives whose literal is there are compiled into the pattern that runs (compiled once per
such set of alternatives). An alternative that cannot match anywhere in the text changes no match of the whole,
so the matches are the same as the full pattern's, in the same order. The pattern that runs is itself searched only
where one of its leading literals starts, when it has such literals (`leading_literals.Leads`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import ahocorasick

from app.grading.reading.leading_literals import Leads, leading_literals
from app.grading.reading.text import grouped, source_of, top_level_alternatives, union

# A literal shorter than this is in nearly every reply: the alternative is tried whatever the text.
_MIN_LITERAL = 3
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


def _clauses(items: sre_parse.SubPattern | list) -> list[frozenset[str]]:
    """What every match of this sequence contains: each clause is a set of literals, one of which must occur."""
    clauses: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            clauses.append(frozenset(["".join(run)]))
            run.clear()

    for op, av in items:
        if op is sre.LITERAL:
            run.append(chr(av))
        elif op is sre.AT:
            continue  # zero width: the literals on either side are still adjacent in the text
        elif op is sre.SUBPATTERN and not (av[1] & re.IGNORECASE):
            flush()
            clauses += _clauses(av[3])
        elif op is sre.BRANCH:
            flush()
            best = [_best(_clauses(branch)) for branch in av[1]]
            if all(b is not None for b in best):
                clauses.append(frozenset().union(*best))  # type: ignore[arg-type]
        elif op in _REPEATS and av[0] >= 1:
            flush()
            clauses += _clauses(av[2])
        else:
            flush()  # a class, a wildcard, a lookaround: no literal we rely on
    flush()
    return clauses


def _best(clauses: list[frozenset[str]]) -> frozenset[str] | None:
    """The clause whose shortest literal is longest (the rarest to find), if that literal is long enough."""
    usable = [c for c in clauses if min(map(len, c)) >= _MIN_LITERAL]
    return max(usable, key=lambda c: (min(map(len, c)), -len(c))) if usable else None


def needed_literals(alternative: str, flags: int = 0) -> frozenset[str] | None:
    """Literals one of which every match of `alternative` contains; None when there is no such usable set."""
    if flags & re.IGNORECASE:
        return None
    return _best(_clauses(sre_parse.parse(alternative, flags)))


class Alternation:
    """Word patterns (`text.word_pattern`), joined as `text.union` joins them, that run only the alternatives the
    text can match."""

    def __init__(self, *patterns: re.Pattern[str]) -> None:
        self.flags = patterns[0].flags if patterns else 0
        self._parts = tuple(tuple(top_level_alternatives(source_of(p))) for p in patterns)
        self.pattern = self._compile(self._parts)
        self._always: set[tuple[int, int]] = set()
        by_literal: dict[str, list[tuple[int, int]]] = {}
        # What each alternative's matches start with: an alternation's matches start with its alternatives'.
        self._leads: dict[tuple[int, int], frozenset[str] | None] = {}
        for part, alternatives in enumerate(self._parts):
            for i, alternative in enumerate(alternatives):
                self._leads[part, i] = leading_literals(alternative, self.flags)
                literals = needed_literals(alternative, self.flags)
                if literals is None:
                    self._always.add((part, i))
                for literal in literals or ():
                    by_literal.setdefault(literal, []).append((part, i))
        # An alternative is a bit of an int: a text's alternatives are the OR of its literals' masks (one int
        # operation a literal found, and a cheap cache key).
        self._order = tuple(self._leads)
        bit = {where: 1 << n for n, where in enumerate(self._order)}
        self._automaton = ahocorasick.Automaton()
        for literal, where in by_literal.items():
            self._automaton.add_word(literal, sum(bit[w] for w in set(where)))
        if by_literal:
            self._automaton.make_automaton()
        self._filtered = bool(by_literal)
        self._always_mask = sum(bit[w] for w in self._always)
        self._all = (1 << len(self._order)) - 1
        self._whole = self._runner(self.pattern, frozenset(self._leads))

    def _runner(
        self, pattern: re.Pattern[str], present: frozenset[tuple[int, int]]
    ) -> re.Pattern[str] | Leads:
        """The pattern of these alternatives as it runs: searched only where a match can start, when that is known."""
        leads = [self._leads[where] for where in present]
        if not leads or None in leads:
            return pattern
        return Leads(pattern, frozenset().union(*leads))  # type: ignore[arg-type]

    def _compile(self, parts: tuple[tuple[str, ...], ...]) -> re.Pattern[str]:
        patterns = [grouped("|".join(alternatives), self.flags) for alternatives in parts if alternatives]
        return patterns[0] if len(patterns) == 1 else union(*patterns)

    @lru_cache(maxsize=1024)  # noqa: B019 - the instances are module constants, never freed
    def _subset(self, mask: int) -> re.Pattern[str] | Leads:
        present = frozenset(where for n, where in enumerate(self._order) if mask >> n & 1)
        pattern = self._compile(
            tuple(
                tuple(a for i, a in enumerate(alternatives) if (part, i) in present)
                for part, alternatives in enumerate(self._parts)
            )
        )
        return self._runner(pattern, present)

    def for_text(self, text: str) -> re.Pattern[str] | Leads | None:
        """The pattern of the alternatives that may match `text`; None when none can."""
        if not self._filtered:
            return self._whole
        mask, everything = self._always_mask, self._all
        for _, bits in self._automaton.iter(text):
            mask |= bits
            if mask == everything:
                return self._whole  # every alternative may match: no need to read on
        if not mask:
            return None
        return self._subset(mask)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        pattern = self.for_text(text)
        return iter(()) if pattern is None else pattern.finditer(text)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        pattern = self.for_text(text)
        return None if pattern is None else pattern.search(text, pos)
