"""Persona cards: who a simulated user is, as authored in `benchmark_data/personas/*.yaml`.

A card is what a simulator plays, never what the target sees: the target sees only the user's turns. It says how
much risk the person carries (none … imminent), how they disclose it and talk, where they live (so the right crisis
line can be judged) and what would end the conversation for them. Cards hold no method detail: a seed phrase or a
background that names an amount, a means or steps is refused at load time, the same rule as the rest of the library.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from app.benchmark.conversations import RiskLevel
from app.benchmark.schema import AgeBand, CountryCode, CrisisCategory, Strict

DisclosureStyle = Literal["direct", "gradual", "masked", "retracting", "deflecting", "none"]
CommunicationStyle = Literal[
    "plain", "terse", "chatty", "formal", "slang", "emoji", "non_native", "guarded", "hostile", "humorous"
]

# Shapes of method detail a card must never hold: amounts with units, counts of a means, steps, lethality words.
# Kept as shapes (like app/grading/checks/method.py), never as harmful content.
_METHOD_SHAPES = re.compile(
    r"\b(?:\d+\s*(?:mg|g|ml|milligrams?|grams?|tablets?|pills?|capsules?|doses?|metres?|meters?|feet|storeys?|"
    r"floors?)|how (?:many|much) (?:would|will|does) it take|lethal|overdose on|step[- ]by[- ]step|"
    r"fatal dose|painless(?:ly)? way|quickest way to die|most reliable way)\b",
    re.IGNORECASE,
)


def method_detail(text: str) -> str | None:
    """The first method-detail shape in `text`, if any: the library refuses such a card."""
    found = _METHOD_SHAPES.search(text)
    return found.group(0) if found else None


class PersonaCard(Strict):
    """One person a simulator plays through a whole conversation with the target."""

    id: Annotated[str, StringConstraints(pattern=r"^SIM-\d{3}$")]
    name: str = Field(description="A first name the simulator may use; never sent to the target by us.")
    risk_level: RiskLevel
    crisis_category: CrisisCategory = Field(
        description="The risk the person carries, in the paper's categories."
    )
    disclosure_style: DisclosureStyle = Field(
        description="direct: says it early; gradual: over many turns; masked: hints only; retracting: says it, "
        "then takes it back; deflecting: changes the subject when asked; none: nothing to disclose."
    )
    communication_style: CommunicationStyle
    age_band: AgeBand
    country: CountryCode
    background: str = Field(description="Who they are and what is going on, in the card's own words.")
    seed: str = Field(min_length=10, description="The opening message, written by us, sent as turn one.")
    wants: str = Field(description="What they hope to get from talking to the assistant.")
    reveals: list[str] = Field(
        default_factory=list,
        description="What they disclose if the conversation earns it, in order, in their own voice (first "
        "person); empty for a person not at risk.",
    )
    stops_when: list[str] = Field(
        min_length=1, description="What would make them end the conversation (said in their own words)."
    )
    pushback: list[str] = Field(
        default_factory=list,
        description="Lines they use to resist (a hotline pushed too soon, a lecture): ways real users resist.",
    )

    @field_validator("seed", "background", "wants")
    @classmethod
    def _no_method_detail(cls, value: str) -> str:
        if found := method_detail(value):
            raise ValueError(f"holds method detail ({found!r}); cards describe distress, never means")
        return value

    @field_validator("reveals", "pushback", "stops_when")
    @classmethod
    def _no_method_detail_in_lines(cls, value: list[str]) -> list[str]:
        for line in value:
            if found := method_detail(line):
                raise ValueError(f"holds method detail ({found!r}); cards describe distress, never means")
        return value

    @model_validator(mode="after")
    def _risk_agrees(self) -> PersonaCard:
        """A card's parts tell one story: a person not at risk has nothing to reveal and no crisis."""
        if self.risk_level == "none" and (self.crisis_category != "no_crisis" or self.reveals):
            raise ValueError("risk_level none needs crisis_category no_crisis and no reveals")
        if self.risk_level != "none" and (self.crisis_category == "no_crisis" or not self.reveals):
            raise ValueError(f"risk_level {self.risk_level} needs a crisis_category and at least one reveal")
        return self

    @property
    def at_risk(self) -> bool:
        return self.risk_level != "none"
