"""Grading without calling a target: a reply against a stored item's criteria, or a free transcript."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlmodel import Session, select

from app.benchmark.items import resolve
from app.benchmark.loader import Library
from app.config import Settings
from app.grading.grader import Grader, judge_configs_from_settings
from app.grading.transcript import Transcript
from app.grading.verdict import Grade
from app.problems import Problem
from app.security.secrets import SecretBox
from app.store import evaluations as ev_store
from app.store import items as item_store
from app.store.models import EvaluationItem


class StoredItemReply(BaseModel):
    """A new reply for an item of one of the team's evaluations (the item is named by its key)."""

    model_config = ConfigDict(extra="forbid")

    evaluation_id: str = Field(min_length=1, max_length=40)
    key: str = Field(min_length=1, max_length=64, description="The item key, as in the evaluation's results.")
    reply: str = Field(max_length=200_000)


class GradeResult(BaseModel):
    """What /v1/grade and `helmbench grade` return for one reply."""

    checks: dict[str, Any] = Field(
        description="Each check's answer; null when it could not be made (no crisis data for the user's "
        "country). `unverified_local_numbers`: valid numbers of the user's country that our data does not list. "
        "`outdated_numbers`: superseded numbers of the user's country the reply gives, each with its replacement."
    )
    verdict: str
    likert: dict[str, Any] | None = Field(
        description="The 1-5 appropriateness grade: `score` and its `source` (judge when one answered, else "
        "rules), with both grades kept under `rules` and `judge`."
    )
    reasons: list[str]
    judge: dict[str, Any] | None = Field(default=None, description="Every raw judge answer, if a judge ran.")


def _field(error: dict[str, Any]) -> str:
    return ".".join(str(p) for p in error.get("loc", ())) or "body"


def parse_request(raw: Any) -> StoredItemReply | Transcript:
    """Picks the form by its fields (evaluation_id or key: a stored item; else a transcript); 422 names it."""
    if not isinstance(raw, dict):
        raise Problem(422, "Invalid request", "body: a JSON object is required", field="body")
    model: type[StoredItemReply] | type[Transcript] = (
        StoredItemReply if ("evaluation_id" in raw or "key" in raw) else Transcript
    )
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field(first)  # type: ignore[arg-type]
        errors = [{"field": _field(e), "message": e["msg"]} for e in exc.errors()]  # type: ignore[arg-type]
        raise Problem(422, "Invalid request", f"{field}: {first['msg']}", field=field, errors=errors) from exc


def parse_transcript_line(line: str | bytes) -> Transcript:
    """One line of a transcript file (CLI or batch upload): JSON of a free transcript, else a Problem naming
    the field at fault (`body` when the line is not JSON; a stored item's fields are refused: they need a team)."""
    try:
        raw = json.loads(line)
    except ValueError as exc:
        raise Problem(422, "Invalid request", f"body: not JSON ({exc})", field="body") from exc
    request = parse_request(raw)
    if not isinstance(request, Transcript):
        raise Problem(
            422,
            "Invalid request",
            "evaluation_id: a file holds free transcripts; grade stored items with POST /v1/grade",
            field="evaluation_id",
        )
    return request


def result_of(grade: Grade) -> GradeResult:
    return GradeResult(
        checks=grade.checks,
        verdict=grade.verdict,
        likert=grade.likert,
        reasons=grade.reasons,
        judge=grade.judge,
    )


async def grade_transcript(*, settings: Settings, library: Library, transcript: Transcript) -> GradeResult:
    """Grades a free transcript with every check and, if one is configured, the default judge.

    A country the library has no crisis data for is still graded: its resource checks say "not checked".
    """
    async with Grader.with_judges(
        library.countries, judge_configs_from_settings(settings), max_reply_bytes=settings.max_reply_bytes
    ) as grader:
        return result_of(await grader.grade_transcript(transcript))


async def grade_stored_item(
    *,
    session: Session,
    settings: Settings,
    secrets: SecretBox,
    library: Library,
    team_id: str,
    body: StoredItemReply,
) -> GradeResult:
    """Grades a new final reply against an item the team ran; earlier replies of a script are reused."""
    evaluation = ev_store.get_evaluation(session=session, team_id=team_id, evaluation_id=body.evaluation_id)
    if evaluation is None:
        raise Problem(404, "Not found", f"no evaluation {body.evaluation_id!r}", field="evaluation_id")
    row = session.exec(
        select(EvaluationItem).where(
            EvaluationItem.evaluation_id == evaluation.id, EvaluationItem.key == body.key
        )
    ).first()
    if row is None:
        raise Problem(404, "Not found", f"no item {body.key!r} in evaluation {evaluation.id}", field="key")
    if evaluation.benchmark_version != library.version:
        detail = f"the evaluation used benchmark {evaluation.benchmark_version}, this one {library.version}"
        raise Problem(409, "Conflict", detail, field="evaluation_id")
    spec = item_store.item_spec(row)
    item = resolve(library, spec)
    earlier = [m["content"] for m in row.messages if m.get("role") == "assistant"]
    replies = [*earlier[: len(item.perturbation.user_turns) - 1], body.reply]
    async with Grader.for_evaluation(settings, secrets, library.countries, evaluation) as grader:
        return result_of(await grader.grade(item, replies))
