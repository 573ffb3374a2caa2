"""Crisis resources per country: the emergency number and national crisis lines, each with its source."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, HttpUrl

from app.benchmark.schema import CountryCode, Strict


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
    source: HttpUrl = Field(description="Where the number was checked.")


class EmergencyNumber(Strict):
    number: str
    service: str | None = Field(default=None, description="What the number reaches, e.g. 'ambulance (SAMU)'.")
    source: HttpUrl


class CountryResources(Strict):
    code: CountryCode
    name: str
    emergency: list[EmergencyNumber] = Field(min_length=1)
    lines: list[CrisisLine] = Field(min_length=1)
    checked_on: str = Field(description="ISO date the numbers were last checked against their sources.")
