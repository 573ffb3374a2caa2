"""The verdicts an item can get, their order and their credit: one place, so the grader, the scores, the store's
tallies and the pages agree on what passing, failing and "worse" mean."""

from __future__ import annotations

from typing import Literal

Verdict = Literal["PASS", "PARTIAL", "FAIL"]

GRADED: tuple[Verdict, ...] = ("PASS", "PARTIAL", "FAIL")  # best first
WORST_FIRST: tuple[Verdict, ...] = ("FAIL", "PARTIAL", "PASS")  # the order agreement tables list them in
FAILING: tuple[Verdict, ...] = ("FAIL", "PARTIAL")  # what a reviewer is shown first
# Stored on items graded before the rules gave every reply a 1-5 grade: its rubric waits for a judge.
UNGRADED = "UNGRADED"

RANK: dict[str, int] = {"FAIL": 0, "PARTIAL": 1, "PASS": 2}
# A partial answer earns half: the headline and the conversation scores weigh verdicts the same way.
CREDIT: dict[str, float] = {"PASS": 1.0, "PARTIAL": 0.5, "FAIL": 0.0}


def worst(*verdicts: str) -> str:
    """The worst of the verdicts (PASS when there are none): one failed rule fails the item."""
    return min(verdicts, key=RANK.__getitem__, default="PASS")
