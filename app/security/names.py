"""Personal names in free text, found offline and with care: a false hit masks a word someone needed.

The lists are the US census given names and surnames that the `names` package ships (MIT, plain files in the
wheel, nothing downloaded). A listed given name is only taken for a name where it is written as one (capitalised,
not all capitals) and is not mostly an ordinary English word: `pyspellchecker`'s English word frequencies (MIT,
shipped) against the census share of people with that name decide, so "Will", "Hope", "Faith" or "Miles" stay
while "John" and "Grace" go. At the start of a sentence, where every word is capitalised, a stricter bar applies
("Sue them" stays), unless a listed surname follows ("Mark Jones"). A surname is only taken next to a given
name or after a title (Mr, Mrs, Dr …): the surname list is full of ordinary words (Young, Long, Church). Words the
grade needs (the crisis services' names), countries (pycountry), months, days and faiths are never taken. Cities
that are also given names (Austin, Dallas) are masked: a place is a personal detail too.
Lower-case or all-capital names, and names outside the census lists, are missed: the README says so.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

NAME_MASK = "[name]"
# A given name is an ordinary word where the word is this many times (or more) as frequent in English text as the
# share of people who bear it: Hope (2.2) and Miles (1.1) are words, Grace (0.015) and Joy (0.045) are names.
WORD_RATIO = 0.1
SENTENCE_START_RATIO = 0.01  # where every word is capitalised, only names that are hardly ever words
TITLES = frozenset({"Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Sir", "Dame"})
FAITH_WORDS = frozenset(
    {"God", "Jesus", "Christ", "Christian", "Lord", "Allah", "Buddha", "Krishna", "Muhammad"}
)
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")  # "John's": the name is "John", the "'s" stays
_SENTENCE_END = ".!?…:;\n"
_SKIPPED_BEFORE = " \t\"'“‘([-–—*"


def _census(path: str) -> dict[str, float]:
    """Name (lower case) -> the share of the population that bears it, from one census file."""
    shares: dict[str, float] = {}
    for line in Path(path).read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) == 4:
            shares[parts[0].lower()] = float(parts[1]) / 100
    return shares


def _plain(text: str) -> Iterable[str]:
    return (w.lower() for w in re.findall(r"[A-Za-z]+", text))


@dataclass(frozen=True)
class NameFinder:
    """Given names (lower case), each with how much more frequent it is as an English word than as a name, and
    the surnames; `protected` are lower-case words never taken for names."""

    given: dict[str, float]
    surnames: frozenset[str]
    titled: frozenset[str]  # surnames that are not mostly words: only these are taken after a title alone
    protected: frozenset[str]

    @classmethod
    def load(cls, protected_texts: Iterable[str] = ()) -> NameFinder:
        """Read the packaged lists once (a fraction of a second); the word frequencies are dropped after."""
        import names as census  # the package's module holds only the paths of its three census files
        from spellchecker import SpellChecker

        male, female = _census(census.FILES["first:male"]), _census(census.FILES["first:female"])
        frequency = SpellChecker(language="en").word_frequency
        total = max(frequency.total_words, 1)
        given = {}
        for name in male.keys() | female.keys():
            share = (male.get(name, 0.0) + female.get(name, 0.0)) / 2  # half the people are of each list
            given[name] = (frequency[name] / total) / share if share else float("inf")
        surnames = _census(census.FILES["last"])
        titled = {name for name, share in surnames.items() if (frequency[name] / total) < share * WORD_RATIO}
        calendar_words = (*calendar.month_name, *calendar.month_abbr, *calendar.day_name, *calendar.day_abbr)
        protected = {w.lower() for w in (*calendar_words, *FAITH_WORDS) if w}
        for text in (*protected_texts, *_country_names()):
            protected.update(_plain(text))
        return cls(
            given=given,
            surnames=frozenset(surnames),
            titled=frozenset(titled),
            protected=frozenset(protected),
        )

    def _given(self, word: str, strict: bool) -> bool:
        ratio = self.given.get(word.lower())
        if ratio is None or word.lower() in self.protected:
            return False
        return ratio < (SENTENCE_START_RATIO if strict else WORD_RATIO)

    def _surname(self, word: str) -> bool:
        return _capitalised(word) and word.lower() in self.surnames and word.lower() not in self.protected

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the names are: (start, end) of each, a given name and its surname as one span."""
        words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
        found: list[tuple[int, int]] = []
        i = 0
        while i < len(words):
            start, end, word = words[i]
            following = words[i + 1] if i + 1 < len(words) and _adjacent(text, end, words[i + 1][0]) else None
            after_title = i + 1 < len(words) and text[end : words[i + 1][0]] in (" ", ". ")
            after_title = after_title and words[i + 1][2].lower() in self.titled  # "Dr Smith", not "Ms Last"
            if word in TITLES and after_title and self._surname(words[i + 1][2]):
                found.append((words[i + 1][0], words[i + 1][1]))
                i += 2
                continue
            if _capitalised(word):
                with_surname = following is not None and self._surname(following[2])
                strict = _starts_sentence(text, start) and not with_surname
                if self._given(word, strict):
                    found.append((start, following[1] if with_surname and following else end))
                    i += 2 if with_surname else 1
                    continue
            i += 1
        return found

    def mask(self, text: str) -> tuple[str, int]:
        """The text with each name replaced by NAME_MASK, and how many were."""
        spans = self.spans(text)
        for start, end in reversed(spans):
            text = text[:start] + NAME_MASK + text[end:]
        return text, len(spans)


def _country_names() -> list[str]:
    """Every country's common and official name (pycountry's ISO 3166 list): "Jordan", "Chad", "America"."""
    import pycountry

    names: list[str] = []
    for country in pycountry.countries:
        names.extend(getattr(country, field, "") for field in ("name", "official_name", "common_name"))
    return names


def _capitalised(word: str) -> bool:
    return len(word) >= 2 and word[0].isupper() and word[1:].replace("-", "").islower()


def _adjacent(text: str, end: int, start: int) -> bool:
    """Two words one space apart, with nothing else between them (no comma, no full stop)."""
    return text[end:start] == " "


def _starts_sentence(text: str, start: int) -> bool:
    """Whether a word opens the text, a line or a sentence (where capitals say nothing about names)."""
    i = start - 1
    while i >= 0 and text[i] in _SKIPPED_BEFORE:
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END
