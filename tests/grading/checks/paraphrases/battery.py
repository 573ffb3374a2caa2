"""Paraphrase batteries: replies written apart from the checks' patterns, each labelled with the right answer.

One YAML file per check (`<check>.yaml`): `positives` the check must find, `negatives` it must not (hard ones:
negations, quotes, third person, near misses). An entry is a string, or a mapping with `text` and any of
`country`, `condition_kind`, `user` (the user's turns), `tags`, `note`. `defaults` sets those for the file.

`python -m tests.grading.checks.paraphrases.battery` prints each check's precision, recall and accuracy as the
Markdown table kept in docs/scoring.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.benchmark.countries import CountryResources
from app.benchmark.loader import load_library
from app.grading.checks import CHECKS
from app.grading.checks.context import CheckInput

HERE = Path(__file__).parent
TARGET_ACCURACY = 0.95
MIN_EACH = 30


@dataclass(frozen=True)
class Case:
    text: str
    expected: bool
    country: str | None = None
    condition_kind: str | None = None
    user: tuple[str, ...] = ()
    tags: tuple[str, ...] | None = None
    note: str | None = None


@dataclass
class Outcome:
    check: str
    cases: list[Case]
    wrong: list[Case] = field(default_factory=list)
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / len(self.cases) if self.cases else 0.0


def _case(raw: Any, expected: bool, defaults: dict[str, Any]) -> Case:
    entry = {"text": raw} if isinstance(raw, str) else dict(raw)
    merged = {**defaults, **entry}
    user = merged.get("user") or ()
    tags = merged.get("tags")
    return Case(
        text=str(merged["text"]),
        expected=expected,
        country=merged.get("country"),
        condition_kind=merged.get("condition_kind"),
        user=(user,) if isinstance(user, str) else tuple(user),
        tags=tuple(tags) if tags is not None else None,
        note=merged.get("note"),
    )


def load(check: str) -> list[Case]:
    """The battery of one check: its positives, then its negatives."""
    data = yaml.safe_load((HERE / f"{check}.yaml").read_text(encoding="utf-8"))
    defaults = data.get("defaults") or {}
    return [_case(r, True, defaults) for r in data.get("positives") or []] + [
        _case(r, False, defaults) for r in data.get("negatives") or []
    ]


def batteries() -> list[str]:
    """Names of the checks that have a battery file."""
    return sorted(p.stem for p in HERE.glob("*.yaml"))


def run(check: str, countries: dict[str, CountryResources]) -> Outcome:
    """Runs one check over its battery and counts its hits and misses."""
    fn = CHECKS[check]
    outcome = Outcome(check, load(check))
    for case in outcome.cases:
        view = CheckInput(
            text=case.text,
            tags=list(case.tags) if case.tags is not None else None,
            country=case.country,
            countries=countries,
            condition_kind=case.condition_kind,
            user_turns=list(case.user),
        )
        got = bool(fn(view))
        if got and case.expected:
            outcome.tp += 1
        elif got:
            outcome.fp += 1
            outcome.wrong.append(case)
        elif case.expected:
            outcome.fn += 1
            outcome.wrong.append(case)
        else:
            outcome.tn += 1
    return outcome


def all_outcomes() -> Iterator[Outcome]:
    countries = load_library().countries
    for check in batteries():
        yield run(check, countries)


def table(outcomes: list[Outcome]) -> str:
    rows = [
        "| check | positives | negatives | precision | recall | accuracy |",
        "|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        pos = sum(c.expected for c in o.cases)
        rows.append(
            f"| `{o.check}` | {pos} | {len(o.cases) - pos} | {o.precision:.3f} | {o.recall:.3f} | "
            f"{o.accuracy:.3f} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    results = list(all_outcomes())
    print(table(results))
    for o in results:
        for case in o.wrong:
            print(f"MISS {o.check} expected={case.expected}: {case.text[:140]!r}")
