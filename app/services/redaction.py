"""Redaction at the door: a transcript's personal details masked before it is stored or graded, and results
masked before they are shown (app/security/pii.py says what is found, and how)."""

from __future__ import annotations

from typing import Any

from app.benchmark.loader import Library
from app.grading.transcript import Message, Transcript
from app.schemas import ItemPublic, ResultsPage
from app.security.names import NameFinder
from app.security.pii import MASKS, Redaction, Redactor, crisis_numbers, grade_words

REDACTED_HEADER = "HELMbench-Redacted"
_REDACTORS: dict[str, Redactor] = {}


def redactor_for(library: Library) -> Redactor:
    """The library's redactor, built once per library version: its crisis numbers and the words a grade needs
    gathered, the name lists read (about a second: the API's warm-up pays it, not a request)."""
    redactor = _REDACTORS.get(library.version)
    if redactor is None:
        names = NameFinder.load(grade_words(library.countries))
        redactor = _REDACTORS[library.version] = Redactor(crisis_numbers(library.countries), names)
    return redactor


def redact_transcript(transcript: Transcript, redactor: Redactor) -> tuple[Transcript, Redaction]:
    """The same transcript with its messages' and reply's personal details masked; graded as any other."""
    found = Redaction()
    messages = [
        Message(role=m.role, content=redactor.text(m.content, transcript.country, found))
        for m in transcript.messages
    ]
    reply = redactor.text(transcript.reply, transcript.country, found)
    return transcript.model_copy(update={"messages": messages, "reply": reply}), found


def redaction_header(found: Redaction) -> str:
    """What was masked, for a response header: `email=1, phone=2, address=0, name=1; crisis-lines-kept=13 11 14`."""
    counts = ", ".join(f"{kind}={found.removed.get(kind, 0)}" for kind in MASKS)
    kept = "|".join(sorted(set(found.crisis_lines_kept)))
    return f"{counts}; crisis-lines-kept={kept}" if kept else counts


def _country(library: Library, scenario_id: str, user_context_id: str | None) -> str | None:
    """The country of an item's user (whose numbering plan its phone numbers follow), where the library says."""
    scenario = library.scenarios.get(scenario_id)
    if scenario is None or not user_context_id:
        return None
    context = library.user_contexts.get(scenario.user_contexts.get(user_context_id.rsplit("-", 1)[-1], ""))
    return context.country if context is not None else None


def redact_results(page: ResultsPage, redactor: Redactor, library: Library) -> ResultsPage:
    """Results with each item's messages, reply and error masked (the user's country as its numbering plan)."""
    items: list[ItemPublic] = []
    for item in page.items:
        country = _country(library, item.scenario_id, item.user_context_id)
        messages = [
            {**m, "content": redactor.text(str(m.get("content", "")), country)} if "content" in m else m
            for m in item.messages
        ]
        items.append(
            item.model_copy(
                update={
                    "messages": messages,
                    "reply": redactor.text(item.reply, country) if item.reply is not None else None,
                    "error": redactor.text(item.error, country) if item.error is not None else None,
                }
            )
        )
    return ResultsPage(items=items, next_cursor=page.next_cursor)


def redact_value(value: Any, redactor: Redactor, country: str | None) -> Any:
    """A stored grade (or any JSON value) with every string in it masked: reasons and judge answers may quote the
    transcript; keys, numbers and flags are left as they are."""
    if isinstance(value, str):
        return redactor.text(value, country)
    if isinstance(value, list):
        return [redact_value(v, redactor, country) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v, redactor, country) for k, v in value.items()}
    return value
