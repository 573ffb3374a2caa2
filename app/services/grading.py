"""Grading without calling a target: a reply against a stored item's criteria, or a free transcript."""

from __future__ import annotations

import json
from typing import Any

from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlmodel import Session

from app.benchmark.items import ResolvedItem, resolve
from app.benchmark.loader import Library
from app.config import Settings
from app.conversations.regrade import new_reply_transcript
from app.errors import Conflict, Invalid, NotFound
from app.grading.grader import Grader
from app.grading.result import GradeResult, result_of
from app.grading.transcript import Transcript
from app.kinds.registry import conversation_kinds
from app.kinds.single_reply import SINGLE_REPLY
from app.runner.judging import default_judges, grader_for
from app.security.secrets import SecretBox
from app.store import evaluations as ev_store
from app.store import items as item_store
from app.store.models import Evaluation


class StoredItemReply(BaseModel):
    """A new reply for an item of one of the team's evaluations (the item is named by its key)."""

    model_config = ConfigDict(extra="forbid")

    evaluation_id: str = Field(min_length=1, max_length=40)
    key: str = Field(min_length=1, max_length=64, description="The item key, as in the evaluation's results.")
    reply: str = Field(max_length=200_000)


def _field(error: dict[str, Any]) -> str:
    return ".".join(str(p) for p in error.get("loc", ())) or "body"


def parse_request(raw: Any) -> StoredItemReply | Transcript:
    """Picks the form by its fields (evaluation_id or key: a stored item; else a transcript); 422 names it."""
    if not isinstance(raw, dict):
        raise Invalid("body", "body: a JSON object is required")
    model: type[StoredItemReply] | type[Transcript] = (
        StoredItemReply if ("evaluation_id" in raw or "key" in raw) else Transcript
    )
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field(first)  # type: ignore[arg-type]
        errors = [{"field": _field(e), "message": e["msg"]} for e in exc.errors()]  # type: ignore[arg-type]
        raise Invalid(field, f"{field}: {first['msg']}", errors=errors) from exc


def parse_transcript_line(line: str | bytes) -> Transcript:
    """One line of a transcript file (CLI or batch upload): JSON of a free transcript, else an Invalid naming
    the field at fault (`body` when the line is not JSON; a stored item's fields are refused: they need a team)."""
    try:
        raw = json.loads(line)
    except ValueError as exc:
        raise Invalid("body", f"body: not JSON ({exc})") from exc
    request = parse_request(raw)
    if not isinstance(request, Transcript):
        raise Invalid(
            "evaluation_id",
            "evaluation_id: a file holds free transcripts; grade stored items with POST /v1/grade",
        )
    return request


async def grade_transcript(*, settings: Settings, library: Library, transcript: Transcript) -> GradeResult:
    """Grades a free transcript with every check and, if one is configured, the default judge.

    A country the library has no crisis data for is still graded: its resource checks say "not checked".
    """
    async with Grader.with_judges(
        library.countries, default_judges(settings), max_reply_bytes=settings.max_reply_bytes
    ) as grader:
        return result_of(await grader.grade_transcript(transcript))


def _stored_case(
    *, session: Session, library: Library, team_id: str, body: StoredItemReply
) -> tuple[Evaluation, ResolvedItem | Transcript, list[str]]:
    """The evaluation and what to grade for a stored item's new reply (database reads): a single reply's item and
    its replies, or a conversation as a transcript with the new reply last. The row's stored kind decides."""
    evaluation = ev_store.get_evaluation(session=session, team_id=team_id, evaluation_id=body.evaluation_id)
    if evaluation is None:
        raise NotFound("evaluation_id", f"no evaluation {body.evaluation_id!r}")
    row = item_store.find_item(session=session, evaluation_id=evaluation.id, key=body.key)
    if row is None:
        raise NotFound("key", f"no item {body.key!r} in evaluation {evaluation.id}")
    if evaluation.benchmark_version != library.version:
        detail = f"the evaluation used benchmark {evaluation.benchmark_version}, this one {library.version}"
        raise Conflict("evaluation_id", detail)
    if row.item_kind in conversation_kinds():
        record = (row.checks or {}).get("conversation") or {}
        return evaluation, new_reply_transcript(row.messages, record, body.reply), []
    if row.item_kind != SINGLE_REPLY.name:
        detail = f"key: an item of a {row.item_kind} run is not a reply the rules grade; there is no reply to grade"
        raise Invalid("key", detail)
    spec = item_store.item_spec(row)
    item = resolve(library, spec)
    earlier = [m["content"] for m in row.messages if m.get("role") == "assistant"]
    return evaluation, item, [*earlier[: len(item.perturbation.user_turns) - 1], body.reply]


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
    # The reads in a worker thread: database work on the loop would hold every other request meanwhile.
    evaluation, item, replies = await run_in_threadpool(
        _stored_case, session=session, library=library, team_id=team_id, body=body
    )
    async with grader_for(settings, secrets, library.countries, evaluation) as grader:
        if isinstance(item, Transcript):
            return result_of(await grader.grade_transcript(item))
        return result_of(await grader.grade(item, replies))
