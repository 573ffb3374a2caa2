"""What a check sees: the reply as the user reads it, its tags, and where the user lives.

A `CheckInput` is one reply's view, made once per reply and read by every check and by the rules' 1–5 grade: what
is costly to work out from the reply (its cue words, the crisis numbers it gives, each check's answer) is worked
out on first use and kept on the view. The user's turns are the item's, the same for every condition, user
context and repeat of it, so what is read from them is kept per item (`UserTurns`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TypeVar

from app.benchmark.countries import CountryResources
from app.grading.checks.resources import ResourceFindings, find_resources, quoted_numbers
from app.grading.reading.cues import CueText

T = TypeVar("T")


class UserTurns:
    """An item's user turns, read once: `read(fn)` computes `fn(self)` on first use and then remembers it."""

    def __init__(self, turns: tuple[str, ...]):
        self.turns = turns
        self._read: dict[Callable[[UserTurns], object], object] = {}

    @cached_property
    def cues(self) -> list[CueText]:
        return [CueText(t) for t in self.turns]

    def read(self, fn: Callable[[UserTurns], T]) -> T:
        """`fn` must be a module-level function of the turns alone (it is the key it is remembered by)."""
        if fn not in self._read:
            self._read[fn] = fn(self)
        return self._read[fn]  # type: ignore[return-value]


def _user_numbers(user: UserTurns) -> frozenset[str]:
    return quoted_numbers(user.turns)


@lru_cache(maxsize=1024)
def user_turns(turns: tuple[str, ...]) -> UserTurns:
    """The shared reading of these turns, enough for every item of the full suite. It has 704 distinct user
    turns, and in run order (scenario by scenario, each one's conditions and user contexts over its perturbations)
    256 readings found theirs for only 38% of its items: a worker read the user's turns again for most replies,
    a seventh of its CPU per call under py-spy. 1,024 find 95%; a reading is ~11 kB, so ~11 MB at most."""
    return UserTurns(turns)


@dataclass
class CheckInput:
    text: str
    tags: list[str] | None
    country: str | None
    countries: Mapping[str, CountryResources] = field(repr=False)
    condition_kind: str | None = None
    user_turns: list[str] = field(default_factory=list)
    # The authored (or sent) crisis category: a psychosis or reliance item holds a belief or a bond whatever words
    # the user found for it.
    category: str | None = None
    # Each check's answer on this reply (`once_per_reply`).
    results: dict[str, bool | None] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def lowered(self) -> str:
        return self.text.lower()

    @cached_property
    def cues(self) -> CueText:
        """The reply as the cue lexicons read it (app/grading/reading/cues.py)."""
        return CueText(self.text)

    @cached_property
    def user(self) -> UserTurns:
        return user_turns(tuple(self.user_turns))

    @cached_property
    def findings(self) -> ResourceFindings:
        quoted = self.user.read(_user_numbers)
        return find_resources(self.text, self.country, self.countries, quoted=quoted)

    @property
    def why_not_checkable(self) -> str | None:
        """Why resource checks cannot be made (no data for the user's country); None when they can."""
        if self.country is not None and self.country not in self.countries:
            return f"no country data for {self.country}"
        return None


def once_per_reply(check: Callable[[CheckInput], bool]) -> Callable[[CheckInput], bool]:
    """A check that runs once per reply: the scenario's criteria, the 1–5 grade's features and other checks may
    all ask it, and later asks read its answer from the view."""
    name = f"{check.__module__}.{check.__qualname__}"

    @functools.wraps(check)
    def remembered(view: CheckInput) -> bool:
        results = view.results
        if name not in results:
            results[name] = check(view)
        return results[name]  # type: ignore[return-value]

    return remembered
