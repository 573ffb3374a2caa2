"""One conversation item end to end: the scripted user talks to the target, each reply is checked, the whole is
graded. The caller writes the row only when this returns, so a crash mid-conversation leaves no row and the next
run of the shard plays the whole conversation again (a half conversation is never resumed or stored)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.benchmark.conversations import ConversationScript, script_id_of
from app.benchmark.items import ItemSpec, render_user_blocks
from app.benchmark.loader import Library
from app.conversations.grade import ConversationGrade, grade_conversation
from app.conversations.judging import refine
from app.conversations.loop import ConversationResult, run_conversation
from app.conversations.observe import Observer
from app.conversations.script_user import ScriptedUser
from app.grading.judges.judge import Panel
from app.targets.base import TargetAdapter, TargetReply


def system_prompt(library: Library, script: ConversationScript) -> str:
    """The deployment the conversation runs in: the script's job, the condition, what the product remembers."""
    condition = library.conditions[script.condition]
    context = library.user_contexts[script.user_context]
    parts = [
        f"<your_job>\n{script.job.strip()}\n</your_job>",
        f"<system_instructions>\n{(condition.system_prompt or '').strip()}\n</system_instructions>",
        *render_user_blocks(context, library.countries[context.country].name),
    ]
    return "\n\n".join(parts)


@dataclass
class ConversationOutcome:
    messages: list[dict[str, str]]
    reply: TargetReply  # the last reply, with latency, attempts and usage summed over the conversation
    graded: dict[str, Any]  # row fields: verdict, score, checks, reasons, judge

    @classmethod
    def graded_by(
        cls,
        messages: list[dict[str, str]],
        reply: TargetReply,
        checks: dict[str, Any],
        grade: ConversationGrade,
        judged: dict[str, Any] | None,
    ) -> ConversationOutcome:
        """A finished conversation's row fields: its verdict and 1–5 score from the grade, the judge's answers."""
        checks["conversation"].update(grade.record())
        graded = {
            "verdict": grade.verdict,
            "score": round(1 + 4 * grade.score, 2),
            "checks": checks,
            "reasons": grade.reasons,
            "judge": judged or None,
        }
        return cls(messages, reply, graded)


def _turns(
    script: ConversationScript, states: list[str], result: ConversationResult, observer: Observer
) -> list:
    return [
        {
            "turn": i,
            "state": state,
            "expect": script.states[state].expect,
            "observed": observed.to_dict(),
            "checks": checks,
        }
        for i, (state, observed, checks) in enumerate(
            zip(states, result.observations, observer.turns, strict=False), start=1
        )
    ]


async def run_item(
    library: Library, adapter: TargetAdapter, spec: ItemSpec, *, judge: Panel | None = None
) -> ConversationOutcome:
    """Plays and grades one conversation item; a target error ends it ungraded, with the error on the row."""
    script = library.conversations[script_id_of(spec.perturbation_id)]
    condition = library.conditions[script.condition]
    country = library.user_contexts[script.user_context].country
    prompt = system_prompt(library, script)
    user = ScriptedUser(script)
    observer = Observer(country=country, countries=library.countries, condition_kind=condition.kind)
    result = await run_conversation(adapter, user, prompt, turn_cap=script.longest, observe=observer)
    usage = result.usage()
    reply = TargetReply(
        text=result.last_reply,
        latency_ms=result.latency_ms,
        attempts=result.attempts,
        usage=usage or None,
        error_class=result.error_class,  # type: ignore[arg-type]
        error=result.error,
    )
    messages = [{"role": "system", "content": prompt}, *result.messages]
    checks: dict[str, Any] = {
        "conversation": {
            "script": script.id,
            "theme": script.theme,
            "risk_level": script.risk_level,
            "country": country,
            "stop_reason": result.stop_reason,
            "turns": _turns(script, user.states, result, observer),
        }
    }
    if result.error_class is not None:
        return ConversationOutcome(messages, reply, {"checks": checks})
    persona = condition.kind in ("roleplay", "companion")
    grade = grade_conversation(script, user.states, observer.turns, country=country, persona=persona)
    judged: dict[str, Any] | None = None
    if judge is not None:
        grade, judged = await refine(judge, script, messages, grade)
    return ConversationOutcome.graded_by(messages, reply, checks, grade, judged)
