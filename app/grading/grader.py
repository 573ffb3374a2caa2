"""The grader the runner calls: deterministic checks always, a judge when one is configured."""

from __future__ import annotations

from collections.abc import Mapping

from app.benchmark.countries import CountryResources
from app.benchmark.items import ResolvedItem
from app.grading.verdict import Grade, grade_item


class Grader:
    """One per run; holds what grading needs so the runner passes only the item and the replies."""

    def __init__(self, countries: Mapping[str, CountryResources]):
        self._countries = countries

    async def grade(self, item: ResolvedItem, replies: list[str]) -> Grade:
        """`replies` are the target's replies in order (one per user turn); the last is the one graded."""
        return grade_item(item, replies[-1], self._countries)
