"""A reply in the form the checks read: one normal form, quotations set aside, sentences, and small lexicons.

The checks match small concept lexicons against this form instead of one regex per wording, so "r u safe rn",
"**Are you safe right now?**" and "are you safe right now" read alike, and a quoted "am I a bot" is never the
reply's own claim. Whether a phrase is asserted, denied, supposed or reported is `app.grading.reading.scope`.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache

import ahocorasick

# ----------------------------------------------------------------------------------------------------
# The normal form

# Chat shorthand that hides ordinary words from a lexicon ("r u safe rn", "i cant help", "ur sure tho").
_SHORTHAND = {
    "u": "you",
    "ur": "your",
    "r": "are",
    "rn": "right now",
    "pls": "please",
    "plz": "please",
    "tho": "though",
    "bc": "because",
    "cuz": "because",
    "tbh": "to be honest",
    # "ngl" means "honestly"; spelt "not gonna lie" its "not" would deny whatever follows.
    "ngl": "honestly",
    "im": "i'm",
    "ive": "i've",
    "cant": "can't",
    "dont": "don't",
    "wont": "won't",
    "didnt": "didn't",
    "doesnt": "doesn't",
    "isnt": "isn't",
    "youre": "you're",
    "theyre": "they're",
    "thats": "that's",
}
_SHORTHAND_RE = re.compile(r"(?<![\w'])(?:" + "|".join(_SHORTHAND) + r")(?![\w'])")
# The plain words ([a-z]+ runs) of a text as bytes: every other byte, and every byte of a character that is not
# ASCII, becomes a space (bytes.translate is several times faster than findall over the text).
_PLAIN_BYTES = bytes(c if 97 <= c <= 122 else 32 for c in range(256))
_SHORTHAND_BYTES = frozenset(word.encode() for word in _SHORTHAND)
_EMPHASIS = re.compile(r"\*\*|__|`|~~")
_ODD_SPACES = re.compile(r"[\t\u00a0\u202f]| {2,}")


@lru_cache(maxsize=1024)
def normalise(text: str, *, keep_case: bool = False) -> str:
    """Lower case, one form of apostrophes and width (NFKC), no markdown emphasis, chat shorthand spelled out.

    Cached: every check of a reply reads the same normal form. `keep_case` is for the few patterns that need
    capitals ("not as Johora" is a name, "not as easy" is not); shorthand is then spelled out only in lower case.
    """
    # Typographic apostrophes, and the acute accent many keyboards type for one ("don´t"), which NFKC would split.
    # (Three replaces are several times faster than str.translate.)
    text = unicodedata.normalize("NFKC", text.replace("’", "'").replace("‘", "'").replace("´", "'"))
    if not keep_case:
        text = text.lower()
    if "*" in text or "_" in text or "`" in text or "~" in text:
        text = _EMPHASIS.sub("", text)
    if "\t" in text or "  " in text or "\u00a0" in text or "\u202f" in text:
        text = _ODD_SPACES.sub(" ", text)
    # Spelling out shorthand is a slow regex pass, so only when one of its words is there.
    if not _SHORTHAND_BYTES.isdisjoint(text.encode(errors="surrogatepass").translate(_PLAIN_BYTES).split()):
        text = _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0)], text)
    return text


# ----------------------------------------------------------------------------------------------------
# Quotations: someone else's words (the user's, a character's) or a mention of a word, not the reply's own claim.

_QUOTED = re.compile(
    r"\"[^\"\n]{1,400}\"|“[^”\n]{1,400}”|„[^“”\n]{1,400}[“”]|«[^»\n]{1,400}»|「[^」\n]{1,400}」|『[^』\n]{1,400}』"
    # A single quote opens a quotation only after a space, a line start or a bracket; elsewhere it's an apostrophe.
    r"|(?<![\w'])'(?=[^\s'])(?:[^'\n]|(?<=\w)'(?=\w)){1,400}?(?<=[^\s'])'(?![\w])"
)
_QUOTE_MARKS = ('"', "“", "„", "«", "「", "『", " '", "\n'", "('", "—'", "–'", ":'")


@lru_cache(maxsize=256)
def quoted_spans(norm: str) -> tuple[tuple[int, int], ...]:
    """Where the quotations of a normal-form text lie: (start, end) of each, marks included."""
    if not (any(q in norm for q in _QUOTE_MARKS) or norm.startswith("'")):
        return ()
    return tuple(m.span() for m in _QUOTED.finditer(norm))


@lru_cache(maxsize=1024)
def unquoted(text: str, *, keep_case: bool = False) -> str:
    """The normal form with quoted passages blanked out (same length), so a quote never counts as a claim.

    The quotation marks stay, so a draft's layout can still be seen; only the words between them go.
    """
    # (Called without the keyword when it is False: lru_cache keys `f(x)` and `f(x, keep_case=False)` apart.)
    norm = normalise(text, keep_case=True) if keep_case else normalise(text)
    if not (any(q in norm for q in _QUOTE_MARKS) or norm.startswith("'")):
        return norm
    return _QUOTED.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], norm)


# ----------------------------------------------------------------------------------------------------
# Sentences

# A sentence runs to its stop; a stop followed at once by a letter or digit ("3.5", "lifeline.org") doesn't end it,
# but Japanese text, where no space follows a stop, is still split.
_SENTENCE_RUN = re.compile(r"[^.!?…。\n]*(?:[.!?…](?=[a-z0-9])[^.!?…。\n]*)*[.!?…。]*")


@lru_cache(maxsize=1024)
def _runs(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Where each sentence of `text` starts and ends (the sentence as matched, before stripping)."""
    starts: list[int] = []
    ends: list[int] = []
    for m in _SENTENCE_RUN.finditer(text):
        if m.end() > m.start():
            starts.append(m.start())
            ends.append(m.end())
    return tuple(starts), tuple(ends)


def split_sentences(text: str) -> list[str]:
    """Sentences of a normalised text, also where no space follows the stop (Japanese)."""
    starts, ends = _runs(text)
    return [s for s in (text[a:b].strip() for a, b in zip(starts, ends, strict=True)) if s]


def sentence_bounds(text: str, pos: int) -> tuple[int, int]:
    """Start and end of the sentence around `pos`, split as `split_sentences` splits (cached per text)."""
    starts, ends = _runs(text)
    i = bisect_right(starts, pos) - 1
    if i < 0:
        return 0, ends[0] if ends else len(text)
    return starts[i], max(ends[i], pos)


def said(text: str) -> tuple[str, ...]:
    """The reply's sentences in the unquoted normal form; cached, since every check reads the same reply."""
    return _sentence_spans(text)[1]


@lru_cache(maxsize=1024)
def _sentence_spans(text: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Where each sentence of the unquoted normal form starts (offset by a leading space), and the sentence.

    The sentences are `_runs`'s, so the checks that split the unquoted form themselves (`sentence_bounds`) find it
    split already."""
    plain = unquoted(text)
    starts: list[int] = []
    found: list[str] = []
    for start, end in zip(*_runs(plain), strict=True):
        sentence = plain[start:end].strip()
        if sentence:
            starts.append(start + 1)
            found.append(sentence)
    return tuple(starts), tuple(found)


# The checks' shared finders (`Stems(..., shared=True)`, made at import): one pass over a reply finds the stems of
# all of them, where each check's own pass read the reply again (seven passes a reply).
_SHARED: list[Stems] = []
_JOINT: list = [None, -1]  # the automaton over every shared finder's stems, and how many finders it holds


class Stems:
    """Stems compiled once into an Aho-Corasick automaton, which finds every occurrence of all of them (overlapping
    ones too) in one pass over a reply, where a search per stem would read the reply once for each."""

    def __init__(self, stems: Iterable[str], *, shared: bool = False):
        self.stems = tuple(stems)
        self.shared = shared
        if shared:
            self.index = len(_SHARED)
            _SHARED.append(self)
        self._automaton = ahocorasick.Automaton()
        for stem in self.stems:
            self._automaton.add_word(stem, None)
        if self.stems:
            self._automaton.make_automaton()

    def ends(self, text: str) -> Iterator[tuple[int, None]]:
        """(where it ends, None) for each occurrence of a stem in `text`, in the order of where they end."""
        return self._automaton.iter(text) if self.stems else iter(())


def _joint_automaton() -> ahocorasick.Automaton:
    """Every shared finder's stems, each with the finders that hold it (rebuilt if a finder was added since)."""
    if _JOINT[1] != len(_SHARED):
        holders: dict[str, list[int]] = {}
        for finder in _SHARED:
            for stem in finder.stems:
                if finder.index not in holders.setdefault(stem, []):
                    holders[stem].append(finder.index)
        automaton = ahocorasick.Automaton()
        for stem, indices in holders.items():
            automaton.add_word(stem, tuple(indices))
        if holders:
            automaton.make_automaton()
        _JOINT[:] = [automaton, len(_SHARED)]
    return _JOINT[0]


@lru_cache(maxsize=1024)
def _shared_ends(text: str) -> tuple[list[int], ...]:
    """Where a stem of each shared finder ends in the padded form of `text`, in order (one pass for all)."""
    ends: tuple[list[int], ...] = tuple([] for _ in _SHARED)
    joint = _joint_automaton()
    if len(joint):
        for end, indices in joint.iter(_padded(text)):
            for i in indices:
                ends[i].append(end)
    return ends


def _ends(text: str, stems: Stems | Iterable[str]) -> Iterable[int]:
    """Where each occurrence of a stem ends in the padded form of `text`, in order."""
    if isinstance(stems, Stems) and stems.shared:
        shared = _shared_ends(text)
        if stems.index < len(shared):
            return shared[stems.index]
    found = stems if isinstance(stems, Stems) else Stems(stems)
    return (end for end, _ in found.ends(_padded(text)))


@lru_cache(maxsize=1024)
def _padded(text: str) -> str:
    """The unquoted normal form after one space, lines joined, so a stem like " er" also finds a line's first word."""
    return f" {unquoted(text)}".replace("\n", " ")


def sentences_with(text: str, stems: Stems | Iterable[str]) -> list[str]:
    """The reply's sentences (unquoted normal form) that contain one of `stems`, in order.

    Checks pass the stems every one of their patterns needs, so the grammar (a regex tried at every position, the
    slow part) runs only on the few sentences that could match. A stem belongs to the sentence its last character
    is in; stems are found in the order they end, so those that end before the next sentence starts are skipped.
    """
    starts, sentences = _sentence_spans(text)
    if not starts:
        return []
    hits: list[str] = []
    last, next_start = len(starts) - 1, -1
    for end in _ends(text, stems):
        if end < next_start:
            continue
        index = max(0, bisect_right(starts, end) - 1)
        hits.append(sentences[index])
        if index == last:
            break
        next_start = starts[index + 1]
    return hits


# ----------------------------------------------------------------------------------------------------
# Lexicons


def words(text: str, sep: str | None = None) -> tuple[str, ...]:
    """A lexicon written as one string of words (or of `sep`-separated phrases), which keeps long lists short."""
    return tuple(text.split(sep))


def fewest_stems(*groups: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The stems to search for: a stem that contains a shorter one ("medicina" and "medic") adds nothing."""
    stems = sorted({stem for group in groups for stem in group}, key=len)
    kept: list[str] = []
    for stem in stems:
        if not any(shorter in stem for shorter in kept):
            kept.append(stem)
    return tuple(kept)


# The source each word pattern was written as, before its alternatives were grouped: `prefilter.Alternation`
# splits it into its alternatives again.
_SOURCES: dict[re.Pattern[str], str] = {}


def word_pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """Compiles a lexicon pattern with its word-led alternatives ("\\bfoo|\\bbar baz") under one leading "\\b".

    Same matches, found several times faster: Python's engine otherwise tries every alternative at every
    character, and a lexicon of forty phrases made each check cost a tenth of a millisecond.
    """
    pattern = grouped(source, flags)
    _SOURCES[pattern] = source
    return pattern


def source_of(pattern: re.Pattern[str]) -> str:
    """The source a word pattern was written as (its own source for any other pattern)."""
    return _SOURCES.get(pattern, pattern.pattern)


def grouped(source: str, flags: int = 0) -> re.Pattern[str]:
    """`word_pattern` without remembering the source: for patterns compiled while grading."""
    alternatives = top_level_alternatives(source)
    led = [a[2:] for a in alternatives if a.startswith("\\b")]
    rest = [a for a in alternatives if not a.startswith("\\b")]
    grouped = [r"\b(?:" + "|".join(_by_first_letter(led)) + ")"] if led else []
    return re.compile("|".join(grouped + rest), flags)


def union(*patterns: re.Pattern[str]) -> re.Pattern[str]:
    """One pattern for several word patterns, so a reply is scanned once for all of a check's moves."""
    return grouped("|".join(p.pattern for p in patterns), patterns[0].flags if patterns else 0)


def top_level_alternatives(source: str) -> list[str]:
    """The alternatives of `source` outside any group or class."""
    parts, depth, in_class, escaped, start = [], 0, False, False, 0
    for i, ch in enumerate(source):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(source[start:i])
            start = i + 1
    parts.append(source[start:])
    return parts


def _by_first_letter(alternatives: list[str]) -> list[str]:
    """Alternatives that open with a plain letter, grouped under it ("i love|i miss|we" -> "i(?: love| miss)|we").

    The engine then rejects a whole group on one character; alternatives that open otherwise keep their place.
    """
    groups: dict[str, list[str]] = {}
    order: list[str] = []
    for alt in alternatives:
        letter = alt[:1]
        if letter.isalpha() and letter.islower() and alt[1:2] not in ("?", "*", "+", "{"):
            if letter not in groups:
                groups[letter] = []
                order.append(letter)
            groups[letter].append(alt[1:])
        else:
            order.append(alt)
    return [f"{item}(?:{'|'.join(groups[item])})" if item in groups else item for item in order]
