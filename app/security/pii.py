"""Personal details taken out of people's words before they are stored or shown: e-mail addresses, phone
numbers, street addresses and personal names. Crisis lines and emergency numbers stay (a grade checks that a reply gives
them) and are listed as kept.

Phone numbers: `phonenumbers` (Google's libphonenumber rules, offline), which knows each country's numbering
plan, so "0412 345 678" in AU is a number and "in 2 345 days" is not. E-mail and street addresses: patterns.
Personal names: census name lists and English word frequencies, both shipped in their packages
(app/security/names.py says how a listed name is told from an ordinary word). Names go last, so a street's name is
already part of an address.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import phonenumbers

from app.benchmark.countries import CountryResources
from app.security.names import NAME_MASK, NameFinder

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_SUFFIXES = (
    "Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Place|Pl|Way|Terrace|Tce|"
    "Crescent|Cres|Close|Parade|Pde|Highway|Hwy|Square|Sq|Grove|Row|Mews"
)
ADDRESS = re.compile(
    rf"\b\d{{1,5}}[A-Za-z]?(?:/\d{{1,5}})?,?\s+(?:[A-Z][A-Za-z'-]+\s+){{1,3}}(?:{_SUFFIXES})\b"
)
MASKS = {"email": "[email]", "phone": "[phone]", "address": "[address]", "name": NAME_MASK}


def _digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit())


def crisis_numbers(countries: Mapping[str, CountryResources]) -> frozenset[str]:
    """The digits of every crisis line, text line and emergency number the library knows, in any country."""
    numbers: set[str] = set()
    for resources in countries.values():
        numbers.update(_digits(e.number) for e in resources.emergency)
        for line in resources.lines:
            numbers.update(_digits(n) for n in (line.number, *line.alt_numbers) if n)
            if line.text is not None:
                numbers.add(_digits(line.text.number))
    return frozenset(n for n in numbers if n)


def grade_words(countries: Mapping[str, CountryResources]) -> list[str]:
    """The names a grade looks for in a reply (crisis services, their aliases, countries): never taken for a
    person's name, even where one is also a given name ("Trevor")."""
    words: list[str] = []
    for resources in countries.values():
        words.append(resources.name)
        words.extend(e.service for e in resources.emergency if e.service)
        words.extend(old.name for old in resources.superseded)
        for line in resources.lines:
            words.extend((line.name, *line.aliases))
    return words


@dataclass
class Redaction:
    """What was taken out of a text (counts by kind) and which crisis lines were kept."""

    removed: Counter[str] = field(default_factory=Counter)
    crisis_lines_kept: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "removed": {kind: self.removed.get(kind, 0) for kind in MASKS},
            "crisis_lines_kept": sorted(set(self.crisis_lines_kept)),
        }


@dataclass(frozen=True)
class Redactor:
    """Redacts texts of one service: the crisis numbers it keeps are the library's; names are found where a
    name finder is given."""

    keep: frozenset[str]
    names: NameFinder | None = None

    def text(self, text: str, country: str | None, found: Redaction | None = None) -> str:
        """The text with e-mail addresses, phone numbers (crisis lines kept), street addresses and names masked."""
        found = found if found is not None else Redaction()
        text, emails = EMAIL.subn(MASKS["email"], text)
        found.removed["email"] += emails
        text = self._phones(text, country, found)
        text, addresses = ADDRESS.subn(MASKS["address"], text)
        found.removed["address"] += addresses
        if self.names is not None:
            text, names = self.names.mask(text)
            found.removed["name"] += names
        return text

    def _phones(self, text: str, country: str | None, found: Redaction) -> str:
        region = country or "ZZ"  # ZZ: only numbers written with their country code (+44 …) are found
        spans: list[tuple[int, int]] = []
        matcher = phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.POSSIBLE)
        for match in matcher:
            national = str(match.number.national_number)
            if _digits(match.raw_string) in self.keep or national in self.keep:
                found.crisis_lines_kept.append(match.raw_string)
                continue
            spans.append((match.start, match.end))
        for start, end in reversed(spans):
            text = text[:start] + MASKS["phone"] + text[end:]
        found.removed["phone"] += len(spans)
        return text

    def texts(self, texts: Iterable[str], country: str | None) -> tuple[list[str], Redaction]:
        found = Redaction()
        return [self.text(t, country, found) for t in texts], found
