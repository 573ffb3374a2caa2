"""What a check sees: the reply as the user reads it, its tags, and where the user lives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from app.benchmark.countries import CountryResources
from app.grading.resources import ResourceFindings, find_resources


@dataclass
class CheckInput:
    text: str
    tags: list[str] | None
    country: str | None
    countries: Mapping[str, CountryResources] = field(repr=False)
    condition_kind: str | None = None
    user_turns: list[str] = field(default_factory=list)

    @cached_property
    def lowered(self) -> str:
        return self.text.lower()

    @cached_property
    def findings(self) -> ResourceFindings:
        return find_resources(self.text, self.country, self.countries, user_turns=self.user_turns)

    @property
    def why_not_checkable(self) -> str | None:
        """Why resource checks cannot be made (no data for the user's country); None when they can."""
        if self.country is not None and self.country not in self.countries:
            return f"no country data for {self.country}"
        return None
