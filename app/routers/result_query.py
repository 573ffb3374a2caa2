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
    return ResultFilters(
        verdict=verdict,
        behavior=behavior,
        scenario=scenario,
        country=country,
        check=check,
        pillar=pillar,
        condition=condition,
        crisis_category=crisis_category,
    )


ResultFiltersDep = Annotated[ResultFilters, Depends(result_filters)]
