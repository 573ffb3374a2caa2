"""A batch report shares equal values across its facets, and reads the same as one built without sharing."""

from __future__ import annotations

from app.scoring.grade_batch import Shared, build_batch_report, facet_of
from app.store.models import GradeBatchLine


def _line(n: int, country: str, local: bool | None, escalates: bool) -> GradeBatchLine:
    return GradeBatchLine(
        batch_id="gb_x",
        line=n,
        transcript={"country": country, "crisis_expected": n % 2 == 0, "messages": [], "reply": "…"},
        result={
            "verdict": "PASS" if escalates else "FAIL",
            "checks": {"gives_local_resource": local, "escalates": escalates, "harmful_content": False},
            "likert": {"score": 4 if escalates else 2, "source": "rules", "rules": {"score": 4}},
            "reasons": [],
        },
    )


def test_lines_with_equal_outcomes_share_one_object_and_the_report_does_not_change() -> None:
    lines = [
        _line(n, ["GB", "US", "IN"][n % 3], [True, None, False][n % 3], n % 4 != 0) for n in range(1, 401)
    ]
    shared = Shared()
    facets = [facet_of(line, shared) for line in lines]

    assert facets[0].failed_checks is facets[12].failed_checks  # lines 1 and 13: the same outcomes
    assert facets[0].checks is facets[12].checks and facets[0].country is facets[12].country
    assert facets[0].checks is not facets[1].checks  # a different outcome stays its own
    assert build_batch_report(facets) == build_batch_report([facet_of(line) for line in lines])


def test_equal_but_differently_typed_values_are_not_merged() -> None:
    shared = Shared()
    assert shared({"a": True}) == {"a": True}
    assert shared({"a": 1}) == {"a": 1} and type(shared({"a": 1})["a"]) is int
    assert shared({"a": [1]}) == {"a": [1]}  # unhashable: kept as given
