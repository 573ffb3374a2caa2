"""Rules grades remembered per (cell, replies) while many bots run the same library.

The ablations differ from the careful bot by one defect, so most of their replies are the careful bot's, word for
word: grading such a pair again gives the same grade (the rules read only the item's authored parts and the
replies) and cost most of the reference bots' run. Every distinct pair is still graded by the real Grader.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from app.benchmark.items import ResolvedItem
from app.grading.grader import Grader
from app.grading.grades.verdict import Grade


@contextmanager
def grades_remembered() -> Iterator[dict[tuple[object, ...], Grade]]:
    """Within the block, a rules-only Grader grades each (cell, replies) once; yields the memo, for its size."""
    memo: dict[tuple[object, ...], Grade] = {}
    grade = Grader.grade

    async def remembered(self: Grader, item: ResolvedItem, replies: list[str]) -> Grade:
        if self.judge is not None:  # a judge's answer is another call, not a function of the replies
            return await grade(self, item, replies)
        spec = item.spec
        key = (spec.scenario_id, spec.condition_id, spec.user_context_id, spec.perturbation_id, *replies)
        if key not in memo:
            memo[key] = await grade(self, item, replies)
        return copy.deepcopy(memo[key])  # each stored row its own, as if graded afresh

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Grader, "grade", remembered)
        yield memo
