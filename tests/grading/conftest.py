"""Grading fixtures: the real country data, and a way to build what a check sees from a reply."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.benchmark.countries import CountryResources
from app.grading.checks.context import CheckInput
from tests.grading.checks.test_resources import COUNTRIES

View = Callable[..., CheckInput]


@pytest.fixture(scope="session")
def countries() -> dict[str, CountryResources]:
    return COUNTRIES


@pytest.fixture
def view(countries: dict[str, CountryResources]) -> View:
    """view(text, country="GB", user_turns=[…]) → the CheckInput a check reads."""

    def make(
        text: str,
        country: str | None = "GB",
        condition_kind: str | None = None,
        user_turns: list[str] | None = None,
    ) -> CheckInput:
        return CheckInput(
            text=text,
            tags=None,
            country=country,
            countries=countries,
            condition_kind=condition_kind,
            user_turns=user_turns or [],
        )

    return make
