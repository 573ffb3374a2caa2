"""The query parameters that filter an evaluation's results, shared by the results pages and the exports."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from app.services.result_filters import CHECK_NAMES, CRISIS_CATEGORIES, VERDICTS, ResultFilters


def result_filters(
    verdict: Annotated[
        str | None, Query(max_length=20, description=f"Only items with this verdict: {', '.join(VERDICTS)}.")
    ] = None,
    behavior: Annotated[
        str | None, Query(max_length=16, description="Only items of this behaviour's scenarios, e.g. P1-B1.")
    ] = None,
    scenario: Annotated[str | None, Query(max_length=40, description="Only items of this scenario.")] = None,
    country: Annotated[
        str | None,
        Query(
            max_length=8,
            description="Only items whose user lives in this country (items with no user: none).",
        ),
    ] = None,
    check: Annotated[
        str | None,
        Query(
            max_length=64,
            description="Only items that failed this check (its outcome not what the scenario expects): "
            + ", ".join(CHECK_NAMES)
            + ".",
        ),
    ] = None,
    pillar: Annotated[
        str | None, Query(max_length=8, description="Only items of this pillar's scenarios, e.g. P1.")
    ] = None,
    condition: Annotated[
        str | None, Query(max_length=64, description="Only items run under this condition (a library id).")
    ] = None,
    crisis_category: Annotated[
        str | None,
        Query(
            max_length=40,
            description="Only items whose message is of this crisis category: "
            + ", ".join(CRISIS_CATEGORIES)
            + ".",
        ),
    ] = None,
) -> ResultFilters:
    # An empty value is no filter: what an HTML form sends for its "all" choice.
    return ResultFilters(
        verdict=verdict or None,
        behavior=behavior or None,
        scenario=scenario or None,
        country=country or None,
        check=check or None,
        pillar=pillar or None,
        condition=condition or None,
        crisis_category=crisis_category or None,
    )


ResultFiltersDep = Annotated[ResultFilters, Depends(result_filters)]
