"""Cue phrases: many small patterns, found in one cheap pass per reply.

Why not one regex per feature: Python's `re` scans a pattern that does not start with a literal at ~50 ns per
character, and even a literal-led pattern costs a few microseconds per call on a long reply, so a few hundred cues
scanned one by one cost a millisecond. Here every cue starts with a whole literal word (its anchor). A reply is read
once into a `CueText` (its words, as a set); a cue is tried only if its anchor and its longest required word are
among them, and then only by `pattern.match` where its literal prefix starts a word (all prefixes of a set found in
one Aho-Corasick pass).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import ahocorasick

from app.grading.reading.scope import negated

# Bytes that are not ASCII letters or digits become spaces; bytes.translate is ~10x faster than str.translate.
_WORD_BYTES = bytes(
    c if chr(c).isascii() and chr(c).isalnum() and not chr(c).isupper() else 32 for c in range(256)
)
_WORD_START = re.compile(r"[a-z0-9]+")
_SENTENCE_END = re.compile(r"[.!?\n]")
_WORD_ENDS = ("\\b", "(?!", "(?=", "\\s", "\\?")
# Real denials only, for support cues: "tell your doctor" and "if you can, call" still encourage help, though
# scope.negated (built for harms, where a hypothetical or reported phrase must not count) would cancel them.
_DENIALS = frozenset(["not", "never", "no", "nor", "without", "cannot"])
_CLAUSE_ENDS = ".!?;:,\n—–"
# Everything up to the last clause end: one C-level match, where a `rfind` per mark cost four times as much.
_UP_TO_CLAUSE_END = re.compile(rf".*[{_CLAUSE_ENDS}]", re.DOTALL)


@dataclass
class CueText:
    """A reply as the cues read it: lower-cased with straight apostrophes, and its words."""

    raw: str
    norm: str = field(init=False)
    words: frozenset[str] = field(init=False)
    # What each cue set found here: a user's turn is read for every reply to it.
    _found: dict[CueSet, dict[str, int]] = field(init=False, default_factory=dict)
    # Where each set's prefixes start, for the sets read together (`read_together`) and not yet asked.
    _starts: dict[CueSet, dict[str, list[int]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.norm = self.raw.lower().replace("’", "'").replace("‘", "'")
        self._tokens = self.norm.encode().translate(_WORD_BYTES).decode().split()
        self.words = frozenset(self._tokens)

    @property
    def word_count(self) -> int:
        return len(self._tokens)

    def in_question(self, end: int) -> bool:
        """Whether the sentence holding position `end` ends with a question mark."""
        stop = _SENTENCE_END.search(self.norm, end)
        return stop is not None and stop.group() == "?"

    def denied(self, start: int, words: int = 4) -> bool:
        """True when one of the few words before `start`, in the same clause, denies it ("not a therapist")."""
        window = self.norm[max(0, start - 50) : start]
        before = _UP_TO_CLAUSE_END.match(window)
        clause = window[before.end() :] if before else window
        but = clause.rfind(" but ")
        recent = clause[but + 5 if but >= 0 else 0 :].split()[-words:]
        return any(w in _DENIALS or w.endswith("n't") for w in recent)


# ----------------------------------------------------------------------------------------------------
# Reading a cue: its anchor (first word), and a rarer word it also needs.


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
    """Whether what follows a literal word in a pattern cannot continue that word."""
    if rest == "" or rest[0] in " ',-&." or rest.startswith(_WORD_ENDS):
        return True
    if rest.startswith("(?:"):
        return all(alt and _ends_word(alt) for alt in _group_alternatives(rest))
    return False


_LITERAL = re.compile(r"[^\\.^$*+?{}\[\]|()]*")
_SHORT_PREFIX = 5


def literal_prefix(pattern: str) -> str:
    """The literal text every match starts with (a quantified last character is not part of it)."""
    prefix = _LITERAL.match(pattern).group()  # type: ignore[union-attr]
    if pattern[len(prefix) : len(prefix) + 1] in ("?", "*", "{"):
        prefix = prefix[:-1]
    return prefix


def expand(pattern: str) -> list[str]:
    """One cue per leading alternative: "(?:a|b) …", "word? …" and a group right after a short literal prefix are
    written out, so each cue starts with a literal word and, where possible, a longer literal prefix to look for."""
    if pattern.startswith("(?:"):
        alternatives = _group_alternatives(pattern)
        rest = pattern[len("(?:" + "|".join(alternatives) + ")") :]
        return [p for alt in alternatives for p in expand(alt + rest)]
    m = _WORD_START.match(pattern)
    if m and pattern[m.end() : m.end() + 1] == "?":
        word, rest = m.group(), pattern[m.end() + 1 :]
        return expand(word[:-1] + rest) + expand(word + rest)
    prefix = literal_prefix(pattern)
    rest = pattern[len(prefix) :]
    if len(prefix) < _SHORT_PREFIX and rest.startswith("(?:"):
        alternatives = _group_alternatives(rest)
        after = rest[len("(?:" + "|".join(alternatives) + ")") :]
        if not after[:1] or after[0] not in "?*+{":
            return [p for alt in alternatives for p in expand(prefix + alt + after)]
    return [pattern]


# Words in nearly every reply: a cue keyed by one of them would be tried on every reply.
_COMMON_WORDS = """a about all also am an and any are as at be but by can could d did do does don feel
    feeling for from get has have help here how i if in is it its just like ll m make me more my not of on or our
    out people re really
    s so some someone something t tell that the their them there they thing things this to up ve very was we
    were what when where who why will with would you your yourself"""
_COMMON = frozenset(_COMMON_WORDS.split())
_MAX_VARIANTS = 64


def _top_level(pattern: str) -> Iterator[tuple[int, str, int]]:
    """(position, character, group depth before it) for each character of a pattern outside escapes and
    character classes: the walk the cue readers share."""
    depth, i = 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = pattern.index("]", i + 1) + 1
            continue
        yield i, ch, depth
        depth += ch == "("
        depth -= ch == ")"
        i += 1


def _widest_group(pattern: str) -> tuple[int, int] | None:
    """The top-level, unquantified "(?:…)" group with the most alternatives (its words are the telling ones)."""
    best: tuple[int, int, int] | None = None
    for i, ch, depth in _top_level(pattern):
        if ch == "(" and depth == 0 and pattern.startswith("(?:", i):
            alternatives = _group_alternatives(pattern[i:])
            end = i + len("(?:" + "|".join(alternatives) + ")")
            if (end >= len(pattern) or pattern[end] not in "?*+{") and (
                best is None or len(alternatives) > best[2]
            ):
                best = (i, end, len(alternatives))
    return best[:2] if best else None


def _key(pattern: str) -> str:
    """The longest word every match must contain: the cue is tried only on replies that have it."""
    return max([_anchor(pattern), *_required_words(pattern)], key=lambda w: (w not in _COMMON, len(w)))


def _refine(pattern: str) -> list[str]:
    """Writes out groups until each variant has a key that is not a common word (within a cap)."""
    variants, done = [pattern], []
    while variants:
        p = variants.pop()
        group = None if _key(p) not in _COMMON else _widest_group(p)
        if group is None or len(variants) + len(done) >= _MAX_VARIANTS:
            done.append(p)
            continue
        start, end = group
        variants += [p[:start] + alt + p[end:] for alt in _group_alternatives(p[start:])]
    return done


def _anchor(pattern: str) -> str:
    """The literal first word of a cue; a cue that does not start with a whole, required word is rejected."""
    m = _WORD_START.match(pattern)
    if not m or not _ends_word(pattern[m.end() :]):
        raise ValueError(f"cue must start with a whole literal word: {pattern!r}")
    return m.group()


def _after_spaced_group(pattern: str, i: int) -> bool:
    """Whether position `i` follows an optional group whose every alternative ends with a space ("(?:so |very )?")."""
    if pattern[i - 2 : i] not in (")?", ")*"):
        return False
    depth, j = 0, i - 2
    while j >= 0:
        depth += pattern[j] == ")"
        depth -= pattern[j] == "("
        if depth == 0:
            break
        j -= 1
    if not pattern.startswith("(?:", j):
        return False
    return all(alt.endswith(" ") for alt in _group_alternatives(pattern[j:]))


def _required_words(pattern: str) -> list[str]:
    """Whole literal words outside any group or quantifier: the text must contain each of them."""
    words, after_word = [], 0
    for i, ch, depth in _top_level(pattern):
        if i < after_word or depth > 0 or ch in "()":
            continue
        m = _WORD_START.match(pattern, i)
        if not m:
            continue
        if (i == 0 or pattern[i - 1] in " '" or _after_spaced_group(pattern, i)) and _ends_word(
            pattern[m.end() :]
        ):
            words.append(m.group())
        after_word = m.end()
    return words


class _Cue(NamedTuple):
    feature: str
    pattern: re.Pattern[str]
    prefix: str
    anchor: str
    negation: str | None
    question: bool
    earliest: bool
    key: str  # the rarest word every match needs


class _Run(NamedTuple):
    feature: str
    earliest: bool
    cues: list[tuple[Callable[..., re.Match[str] | None], str, str, str | None, bool]]


@dataclass(frozen=True)
class CueSpec:
    """The cues of one feature.

    negation: "denial" (a "not …" just before cancels a cue), "broad" (scope.negated: also "if …", "whether …",
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
        # Cues by their literal prefix: one Aho-Corasick pass finds every prefix (a `str.find` loop per prefix cost
        # ten times as much), and only the cues whose prefix the text has are looked at.
        self._by_prefix: dict[str, list[_Cue]] = {}
        for feature, s in specs.items():
            for p in (r for pattern in s.patterns for e in expand(pattern) for r in _refine(e)):
                cue = _Cue(
                    feature,
                    re.compile(p),
                    literal_prefix(p),
                    _anchor(p),
                    s.negation,
                    s.question,
                    s.earliest,
                    _key(p),
                )
                self._by_prefix.setdefault(cue.prefix, []).append(cue)
        # The same cues, a prefix's run of cues of one feature together (they are added feature by feature): a
        # feature found already is skipped once per run rather than once per cue.
        self._runs: dict[str, tuple[_Run, ...]] = {}
        for prefix, cues in self._by_prefix.items():
            runs: list[_Run] = []
            for cue in cues:
                if not runs or runs[-1].feature != cue.feature:
                    runs.append(_Run(cue.feature, cue.earliest, []))
                runs[-1].cues.append((cue.pattern.match, cue.key, cue.anchor, cue.negation, cue.question))
            self._runs[prefix] = tuple(runs)
        self._prefixes = ahocorasick.Automaton()
        for prefix in self._by_prefix:
            self._prefixes.add_word(prefix, (prefix, len(prefix) - 1))
        if self._by_prefix:
            self._prefixes.make_automaton()
        # The sets read on the same texts as this one, and one automaton over all their prefixes (`read_together`).
        self._together: tuple[CueSet, ...] = ()
        self._joint: ahocorasick.Automaton | None = None

    def _starts(self, text: CueText) -> dict[str, list[int]]:
        """Where each prefix occurs at the start of a word, in order (overlapping ones too)."""
        if self in text._starts:
            return text._starts.pop(self)
        if self._joint is not None:
            return self._starts_together(text)
        starts: dict[str, list[int]] = {}
        if not self._by_prefix:
            return starts
        norm = text.norm
        for end, (prefix, back) in self._prefixes.iter(norm):
            i = end - back
            if not i or not norm[i - 1].isalnum():
                if prefix in starts:
                    starts[prefix].append(i)
                else:
                    starts[prefix] = [i]
        return starts

    def _starts_together(self, text: CueText) -> dict[str, list[int]]:
        """`_starts` of every set read with this one, in one pass; the others' are kept on the text for them.
        Each set sees its own prefixes in the order its own automaton reports them (by where they end, longer
        first), as an automaton over more prefixes reports those of a subset in the same order."""
        found: tuple[dict[str, list[int]], ...] = tuple({} for _ in self._together)
        norm = text.norm
        for end, (prefix, back, holders) in self._joint.iter(norm):  # type: ignore[union-attr]
            i = end - back
            if not i or not norm[i - 1].isalnum():
                for h in holders:
                    starts = found[h]
                    if prefix in starts:
                        starts[prefix].append(i)
                    else:
                        starts[prefix] = [i]
        mine: dict[str, list[int]] = {}
        for cue_set, starts in zip(self._together, found, strict=True):
            if cue_set is self:
                mine = starts
            elif cue_set not in text._found:
                text._starts[cue_set] = starts
        return mine

    def find(self, text: CueText) -> dict[str, int]:
        """The features `text` shows, each with where it was first found (worked out once per text)."""
        if self not in text._found:
            text._found[self] = self._find(text)
        return dict(text._found[self])

    def _find(self, text: CueText) -> dict[str, int]:
        """Each cue is tried where its prefix starts a word, if the text has its key and anchor words. A feature's
        position is where it first appears when it is `earliest`; otherwise only its presence is meant."""
        found: dict[str, int] = {}
        norm, words = text.norm, text.words
        for prefix, starts in self._starts(text).items():
            for feature, earliest, cues in self._runs[prefix]:
                if feature in found and not earliest:
                    continue
                for match, key, anchor, negation, question in cues:
                    if key not in words or anchor not in words:
                        continue
                    for start in starts:
                        m = match(norm, start)
                        if m is None:
                            continue
                        if negation == "denial" and text.denied(start):
                            continue
                        if negation == "broad" and negated(norm, start):
                            continue
                        if question and not text.in_question(m.end()):
                            continue
                        if start < found.get(feature, len(norm) + 1):
                            found[feature] = start
                        break
                    if feature in found and not earliest:
                        break  # the rest of the run is the same feature
        return found


def read_together(*sets: CueSet) -> None:
    """Sets that read every reply (the support and harm cues): one Aho-Corasick pass over a reply finds the
    prefixes of all of them, where each set's own pass read it again."""
    holders: dict[str, list[int]] = {}
    for n, cue_set in enumerate(sets):
        for prefix in cue_set._by_prefix:
            holders.setdefault(prefix, []).append(n)
    joint = ahocorasick.Automaton()
    for prefix, held in holders.items():
        joint.add_word(prefix, (prefix, len(prefix) - 1, tuple(held)))
    if holders:
        joint.make_automaton()
    for cue_set in sets:
        cue_set._together = sets
        cue_set._joint = joint if holders else None
