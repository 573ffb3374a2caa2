"""How often redaction moves a grade: the validation sets graded as sent and with their personal details masked.

`redact: true` promises a grade unchanged where personal details were not the harm. Real text is where a masked
word that was not a name (a false hit) would show: every reply of `bhh_dev.jsonl` and every assistant turn of the
VERA-MH conversations (against the conversation before it) is graded twice by the rules, once as written and once
after `Redactor.text` (e-mail addresses, phone numbers, street addresses, names). Printed: what was masked, by kind,
and how many grades changed (verdict, 1-5 score, or a harm check), with the ids of those that did (never their
text). The sets are read from `../shared/validation/` at run time and never copied into the repository.

    .venv/bin/python -m bench.redaction_effect [--data DIR] [--conversations N]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from app.benchmark.loader import load_library
from app.grading.checks import HARM_CHECKS
from app.grading.grader import Grader
from app.grading.transcript import Message, Transcript
from app.security.pii import Redaction, Redactor
from app.services.redaction import redactor_for
from bench.validity import DEFAULT_DATA, load_rated, read_conversation


async def _decision(grader: Grader, transcript: Transcript) -> tuple[object, ...]:
    """What a grade decides: verdict, the rules' 1-5 score and which harm checks fired."""
    grade = await grader.grade_transcript(transcript)
    score = grade.rules.score if grade.rules is not None else None
    return grade.verdict, score, tuple(name for name in HARM_CHECKS if grade.checks.get(name))


def _masked(messages: Sequence[Message], redactor: Redactor, found: Redaction) -> list[Message]:
    return [Message(role=m.role, content=redactor.text(m.content, None, found)) for m in messages]


async def rated(grader: Grader, redactor: Redactor, path: Path) -> tuple[int, list[str], Redaction]:
    """Replies of the rated set whose grade moved when masked."""
    found = Redaction()
    changed: list[str] = []
    rows = load_rated(path)
    for row in rows:
        crisis = row.category != "no_crisis"
        plain = Transcript(
            crisis_expected=crisis,
            crisis_category=row.category if crisis else None,  # type: ignore[arg-type]
            messages=[Message(role="user", content=row.user_message)],
            reply=row.reply,
        )
        masked = plain.model_copy(
            update={
                "messages": _masked(plain.messages, redactor, found),
                "reply": redactor.text(plain.reply, None, found),
            }
        )
        if await _decision(grader, plain) != await _decision(grader, masked):
            changed.append(row.id)
    return len(rows), changed, found


async def conversations(
    grader: Grader, redactor: Redactor, folder: Path, limit: int | None
) -> tuple[int, list[str], Redaction]:
    """Assistant turns whose grade moved when the turn and the conversation before it were masked."""
    found = Redaction()
    changed: list[str] = []
    turns = 0
    for path in sorted(folder.glob("*/*.txt"))[:limit]:
        messages = read_conversation(path)
        masked = _masked(messages, redactor, found)  # each message masked once, then cut at every turn
        for i, message in enumerate(messages):
            if message.role != "assistant":
                continue
            turns += 1
            plain = Transcript(crisis_expected=True, messages=messages[:i], reply=message.content)
            hidden = Transcript(crisis_expected=True, messages=masked[:i], reply=masked[i].content)
            if await _decision(grader, plain) != await _decision(grader, hidden):
                changed.append(f"{path.parent.name}/{path.name}#{i}")
    return turns, changed, found


def _report(name: str, graded: int, changed: list[str], found: Redaction) -> None:
    removed = Counter(found.removed)
    masked = ", ".join(f"{kind} {removed.get(kind, 0)}" for kind in ("email", "phone", "address", "name"))
    print(f"{name}: {graded} graded; masked: {masked}; grades changed: {len(changed)} of {graded}")
    for where in changed:
        print(f"    {where}")


async def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.redaction_effect", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared validation folder")
    parser.add_argument(
        "--conversations", type=int, default=None, help="read at most this many (default: all)"
    )
    args = parser.parse_args(argv)
    if not (args.data / "bhh_dev.jsonl").exists():
        sys.exit(f"no validation data at {args.data}: pass --data (the shared validation folder)")
    library = load_library()
    grader, redactor = Grader(library.countries), redactor_for(library)
    _report("bhh_dev replies", *await rated(grader, redactor, args.data / "bhh_dev.jsonl"))
    folder = args.data / "vera-mh" / "conversations"
    _report("VERA-MH assistant turns", *await conversations(grader, redactor, folder, args.conversations))


if __name__ == "__main__":
    asyncio.run(main())
