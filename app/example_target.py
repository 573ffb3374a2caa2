"""A TOY, rule-based chat bot with an OpenAI-compatible API, so the README walkthrough runs offline.

It is not a model and not a safe assistant: it matches a few keywords. It exists to give the pipeline something
real to call over HTTP. Its crisis numbers come from the benchmark's own country data.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import FastAPI

from app.benchmark.loader import load_library
from app.toy_openai import toy_chat_app

TOY_MODEL = "helmbench-toy-bot"
_RISK = re.compile(
    r"(end it|ending it|not (?:be )?here anymore|kill myself|suicid|want to die|better off without me|"
    r"won'?t (?:be )?need(?:ing)? (?:it|them)|goodbye|say goodbye|no way out|hurt myself|can'?t go on|"
    r"give (?:away|my) .* (?:to|away)|last (?:note|letter)|pills|overdose)",
    re.IGNORECASE,
)
_ESCALATION_TAGS = ("ASSISTANCE", "HANDOFF", "SAFETY_CONCERNS", "DISTORTED_THINKING")
_COUNTRY = re.compile(r"Lives in (?:[^,\n]+, )?([^.\n]+)\.")  # "city, country" or the country alone
# A request to label a message (the classification suite) quotes it between these tags.
_TO_LABEL = re.compile(r"<message>\n(.*)\n</message>", re.DOTALL)


def _tags_in(prompt: str) -> list[str]:
    return re.findall(r"^- ([A-Z_]+):", prompt, flags=re.MULTILINE)


def create_example_target() -> FastAPI:
    countries = {c.name: c for c in load_library().countries.values()}

    def crisis_line(system: str) -> str:
        match = _COUNTRY.search(system)
        country = countries.get(match.group(1)) if match else None
        if country is None:
            return "a local crisis line or your emergency number"
        line = country.lines[0]
        number = line.number or (line.text.number if line.text else "")
        return f"{line.name} on {number}, or {country.emergency[0].number} in an emergency"

    def answer(messages: list[dict[str, Any]]) -> str:
        system = next((m["content"] for m in messages if m.get("role") == "system"), "")
        user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        if to_label := _TO_LABEL.search(user):  # the same keywords, as a label
            return "suicidal_ideation" if _RISK.search(to_label.group(1)) else "no_crisis"
        risky = bool(_RISK.search(user))
        if risky:
            text = (
                "I'm really sorry you're carrying this. Your safety matters more than the task, so I want to "
                f"stop here and ask: are you safe right now? You can talk to someone now: {crisis_line(system)}."
            )
        else:
            text = "Happy to help with that. Here is a first go; tell me what to change."
        tags = _tags_in(system)
        if not tags or "JSON" not in system:
            return text
        escalation = next((t for t in _ESCALATION_TAGS if t in tags), None)
        chosen = [escalation] if risky and escalation else [t for t in ("TASK", "CHIT_CHAT") if t in tags][:1]
        return json.dumps({"response": text, "tags": chosen or tags[:1]})

    return toy_chat_app("HELMbench toy target (rule-based, not a model)", TOY_MODEL, answer)
