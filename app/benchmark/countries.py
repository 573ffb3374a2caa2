"""Crisis resources per country: the emergency number and national crisis lines, each with its source."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, HttpUrl, field_validator, model_validator

from app.benchmark.schema import CountryCode, Strict


def _vanity_with_digits(value: str | None) -> str | None:
    """The matcher looks for numbers and vanity forms only in replies that contain a digit."""
    if value is not None and not re.search(r"\d", value):
        raise ValueError("a vanity number must contain digits; a name without digits is an alias")
    return value


class TextLine(Strict):
    """A text/SMS line: a number and, where the service asks for one, a keyword (\"text HOME to …\")."""

    number: str
    keyword: str | None = None


class CrisisLine(Strict):
    name: str
    aliases: list[str] = Field(
        default_factory=list, description="Other names a reply may use for it, e.g. 'the Samaritans'."
    )
    number: str | None = Field(default=None, description="Voice number as the service writes it.")
    alt_numbers: list[str] = Field(
        default_factory=list, description="Other voice numbers the service states for the same line."
    )
    vanity: str | None = Field(default=None, description="Letters form, e.g. 1-800-273-TALK, if advertised.")
    text: TextLine | None = None
    chat_url: HttpUrl | None = None
    website: HttpUrl | None = None
    hours: str = "24/7"
    languages: list[str] = Field(
        default_factory=list, description="Languages a caller can be answered in, as the source states them."
    )
    audience: str = Field(default="anyone", description="Who the line serves, e.g. 'young people 5-25'.")
    kind: Literal[
        "suicide_crisis",
        "general_crisis",
        "youth",
        "lgbtq",
        "veterans",
        "domestic_violence",
        "substance_use",
        "indigenous",
        "other",
    ] = "suicide_crisis"
    source: HttpUrl = Field(description="A page that states the number.")
    note: str | None = Field(
        default=None, description="Why an entry differs from other listings, or what a reader should know."
    )

    _vanity_has_digits = field_validator("vanity")(lambda value: _vanity_with_digits(value))


class EmergencyNumber(Strict):
    number: str
    service: str | None = Field(default=None, description="What the number reaches, e.g. 'ambulance (SAMU)'.")
    source: HttpUrl
    note: str | None = None


class SupersededNumber(Strict):
    """A number a service no longer leads with: a reply that gives it is out of date, not helpful locally."""

    name: str = Field(description="The service as it was known with this number.")
    number: str
    vanity: str | None = Field(default=None, description="Its letters form, if it was advertised with one.")
    replaced_by: str = Field(description="The name of the current line in `lines` (or emergency number).")
    still_works: bool = Field(
        default=False, description="Whether the old number still connects (e.g. forwards to the new line)."
    )
    source: HttpUrl = Field(description="A page that states the change or the replacement.")
    note: str | None = None

    _vanity_has_digits = field_validator("vanity")(lambda value: _vanity_with_digits(value))


class NotListed(Strict):
    """A line the independent reference list carries that the data leaves out, and why: a reader checking the two
    lists sees a reason, not a silent gap."""

    name: str
    number: str
    reason: str


class CountryResources(Strict):
    code: CountryCode
    name: str
    emergency: list[EmergencyNumber] = Field(min_length=1)
    lines: list[CrisisLine] = Field(min_length=1)
    superseded: list[SupersededNumber] = Field(
        default_factory=list, description="Retired or replaced numbers: a reply giving one is out of date."
    )
    checked_on: str = Field(description="ISO date the numbers were last checked against their sources.")
    not_listed: list[NotListed] = Field(
        default_factory=list,
        description="Lines of the reference list left out (no page stating the number was found, or conflicting).",
    )

    @model_validator(mode="after")
    def _superseded_numbers_are_not_current(self) -> CountryResources:
        current = {_digits(e.number) for e in self.emergency}
        for line in self.lines:
            current.update(_digits(n) for n in (line.number, *line.alt_numbers) if n)
            if line.text:
                current.add(_digits(line.text.number))
        replacements = {line.name for line in self.lines} | {e.number for e in self.emergency}
        for old in self.superseded:
            if _digits(old.number) in current:
                raise ValueError(f"superseded number {old.number} is also listed as current")
            if old.replaced_by not in replacements:
                raise ValueError(
                    f"superseded {old.number}: replaced_by {old.replaced_by!r} names no current line"
                )
        return self


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)
