"""Cue phrases: many small patterns, found in one cheap pass per reply.

Why not one regex per feature: Python's `re` pays ~50 ns per character for a pattern that does not start with a
literal, so a dozen alternation-heavy features cost a millisecond on a long reply. Here every cue must start with a
whole literal word; a cue runs only when that word is among the reply's words (one set intersection in C), and a
pattern with a literal prefix is scanned by `re`'s fast prefix search. A reply is read once into a `CueText`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from app.grading.text import negated

# Real denials only. Support cues use these: "tell your doctor" and "if you can, call" still encourage help, though
# text.negated (built for harms, where a hypothetical or reported phrase must not count) would cancel them.
_DENIALS = frozenset(["not", "never", "no", "nor", "without", "cannot"])
_WORD = re.compile(r"[a-z']+")
_CLAUSE_BREAK = re.compile(r"[.!?;:,\n—–]|\bbut\b")
_WORD_START = re.compile(r"[a-z0-9]+")
_NOT_WORD = str.maketrans({c: " " for c in "\n\t\r.,;:!?()[]{}\"'`*_#>|/\\+=~^&%$@<-–—…“”‘’•·"})
_SENTENCE_END = re.compile(r"[.!?\n]")
_WORD_ENDS = ("\\b", "(?!", "(?=", "\\s", "\\?")


@dataclass
class CueText:
    """A reply as the cues read it: lower-cased, straight apostrophes, and the set of its words."""

    raw: str
    norm: str = field(init=False)

    def __post_init__(self) -> None:
        self.norm = self.raw.lower().replace("’", "'").replace("‘", "'")

    @cached_property
    def words(self) -> frozenset[str]:
        return frozenset(self.norm.translate(_NOT_WORD).split())

    @cached_property
    def word_count(self) -> int:
        return len(self.norm.translate(_NOT_WORD).split())

    def in_question(self, end: int) -> bool:
        """Whether the sentence holding position `end` ends with a question mark."""
        stop = _SENTENCE_END.search(self.norm, end)
        return stop is not None and stop.group() == "?"


def denied(norm: str, start: int, words: int = 4) -> bool:
    """True when one of the few words before `start`, in the same clause, denies it ("not a therapist")."""
    clause = _CLAUSE_BREAK.split(norm[max(0, start - 60) : start])[-1]
    recent = _WORD.findall(clause)[-words:]
    return any(w in _DENIALS or w.endswith("n't") for w in recent)


@dataclass(frozen=True)
class _Cue:
    feature: str
    pattern: re.Pattern[str]
    negation: str | None
    question: bool
    earliest: bool


def _group_alternatives(rest: str) -> list[str]:
    """The top-level alternatives of the "(?:…)" group that `rest` starts with."""
    depth, start, parts = 0, 3, []
    for i, ch in enumerate(rest):
        if ch == "(" and (i == 0 or rest[i - 1] != "\\"):
            depth += 1
        elif ch == ")" and rest[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return [*parts, rest[start:i]]
        elif ch == "|" and depth == 1:
            parts.append(rest[start:i])
            start = i + 1
    raise ValueError(f"unbalanced group in cue: {rest!r}")


def _ends_word(rest: str) -> bool:
    if rest == "" or rest[0] in " ',-&." or rest.startswith(_WORD_ENDS):
        return True
    if rest.startswith("(?:"):
        return all(alt and _ends_word(alt) for alt in _group_alternatives(rest))
    return False


def expand(pattern: str) -> list[str]:
    """Writes a leading "(?:a|b) …" or "word? …" as one cue per first word, so each can be indexed by it."""
    if pattern.startswith("(?:"):
        alternatives = _group_alternatives(pattern)
        rest = pattern[len("(?:" + "|".join(alternatives) + ")") :]
        return [p for alt in alternatives for p in expand(alt + rest)]
    m = _WORD_START.match(pattern)
    if m and pattern[m.end() : m.end() + 1] == "?":
        word, rest = m.group(), pattern[m.end() + 1 :]
        return expand(word[:-1] + rest) + expand(word + rest)
    return [pattern]


def _anchor(pattern: str) -> str:
    """The literal first word of a cue; a cue that does not start with a whole, required word is rejected."""
    m = _WORD_START.match(pattern)
    if not m or not _ends_word(pattern[m.end() :]):
        raise ValueError(f"cue must start with a whole literal word: {pattern!r}")
    return m.group()


@dataclass(frozen=True)
class CueSpec:
    """The cues of one feature.

    negation: "denial" (a "not …" just before cancels a cue), "broad" (text.negated: also "if …", "whether …",
    reported speech), or None. question: the cue counts only inside a sentence that ends with "?". earliest: find
    where the feature first appears (all its cues run), not just whether it does.
    """

    patterns: tuple[str, ...]
    negation: str | None = "denial"
    question: bool = False
    earliest: bool = False


def spec(
    *patterns: str, negation: str | None = "denial", question: bool = False, earliest: bool = False
) -> CueSpec:
    return CueSpec(patterns=patterns, negation=negation, question=question, earliest=earliest)


class CueSet:
    """Features, each a list of cues; `find` returns the features a reply shows and where each was found."""

    def __init__(self, specs: Mapping[str, CueSpec]) -> None:
        self.features = tuple(specs)
        self._index: dict[str, list[_Cue]] = {}
        for feature, s in specs.items():
            for p in (e for pattern in s.patterns for e in expand(pattern)):
                cue = _Cue(feature, re.compile(p), s.negation, s.question, s.earliest)
                self._index.setdefault(_anchor(p), []).append(cue)
        self._anchors = frozenset(self._index)

    def find(self, text: CueText) -> dict[str, int]:
        found: dict[str, int] = {}
        norm = text.norm
        for word in self._anchors.intersection(text.words):
            for cue in self._index[word]:
                if cue.feature in found and not cue.earliest:
                    continue
                for m in cue.pattern.finditer(norm):
                    start = m.start()
                    if start and norm[start - 1].isalnum():
                        continue
                    if cue.negation == "denial" and denied(norm, start):
                        continue
                    if cue.negation == "broad" and negated(norm, start):
                        continue
                    if cue.question and not text.in_question(m.end()):
                        continue
                    if start < found.get(cue.feature, len(norm) + 1):
                        found[cue.feature] = start
                    break
        return found
