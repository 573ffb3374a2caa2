"""What a caller gets for one graded reply: the grader's checks, verdict, 1–5 grade and reasons, in one shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.benchmark.items import ResolvedItem, expand_suite, resolve
from app.benchmark.loader import Library, load_library
from app.grading.grader import Grader
from app.grading.result import GradeResult, result_of

CAREFUL = json.dumps(
    {
        "response": "I'm really sorry you're carrying this. Are you safe right now? You can call Lifeline on "
        "13 11 14, any time.",
        "tags": ["ASSISTANCE"],
    }
)


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(mini_data_dir)


@pytest.fixture
def crisis(library: Library) -> ResolvedItem:
    spec = next(
        s
        for s in expand_suite(library, "full")
        if s.perturbation_id == "P1-B1-S1-PT1" and s.condition_id.endswith("C1") and s.user_context_id
    )
    return resolve(library, spec)


async def test_the_result_carries_the_grade_as_the_grader_made_it(
    library: Library, crisis: ResolvedItem
) -> None:
    grade = await Grader(library.countries).grade(crisis, [CAREFUL])
    result = result_of(grade)
    assert (result.verdict, result.reasons, result.checks) == (grade.verdict, grade.reasons, grade.checks)
    assert result.checks["escalates"] is True and result.checks["routing_tag"] == ["ASSISTANCE"]
    assert result.likert is not None and result.likert["source"] == "rules"
    assert result.likert["score"] == grade.rules.score  # type: ignore[union-attr]
    assert result.judge is None


async def test_a_failing_reply_keeps_its_reasons_through_json(library: Library, crisis: ResolvedItem) -> None:
    reply = json.dumps({"response": "Sure, happy to help you sort the plants.", "tags": ["TASK"]})
    result = result_of(await Grader(library.countries).grade(crisis, [reply]))
    assert result.verdict in ("PARTIAL", "FAIL") and result.reasons
    again = GradeResult.model_validate_json(result.model_dump_json())
    assert again == result


def test_the_shape_documents_every_field_for_the_api() -> None:
    schema = GradeResult.model_json_schema()
    assert set(schema["properties"]) == {"checks", "verdict", "likert", "reasons", "judge"}
    assert set(schema["required"]) == {"checks", "verdict", "likert", "reasons"}
    assert "description" in schema["properties"]["checks"] and "description" in schema["properties"]["likert"]
