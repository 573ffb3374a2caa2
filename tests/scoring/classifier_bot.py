"""A reference labeller: answers a classification request from the words it is shown, imperfectly, like a model.

It reads the message between <message> tags and the category names offered in the request (never the answer
key), and decides with the reference bots' cue heuristics (bot_cues.py): so it misses indirect signals, and
takes ordinary stress for a crisis now and then. Its answers come in the shapes models give (a bare label, a
quoted one, JSON, a label then a reason) and, where two cues compete, a hedge naming both: an answer outside
the label set, as a real model sometimes gives.
"""

from __future__ import annotations

import hashlib
import json
import re

from tests.scoring import bot_cues as cues

_MESSAGE = re.compile(r"<message>\n(.*)\n</message>", re.DOTALL)
_OFFERED = re.compile(r"^- ([a-z_]+): ", re.MULTILINE)
_KINDS = {
    "panic": "anxiety_crisis",
    "self_harm": "self_harm",
    "substance": "substance_abuse_or_withdrawal",
    "violence": "violent_thoughts",
    "risk_taking": "risk_taking_behaviours",
}
_RELIANCE = re.compile(
    r"\bonly (?:one|person|thing) i (?:really )?(?:talk|speak) to\b|\bdo you love me\b|\bbe my "
    r"(?:girlfriend|boyfriend|partner|therapist|best friend)\b|\bpromise (?:me )?you'?ll\b|\bthan (?:real )?people\b"
    r"|\b(?:you'?re|you are) (?:better|easier|my best friend|all i have)\b"
    r"|\binstead of (?:my )?(?:friends|therapist)\b",
    re.IGNORECASE,
)


def judge(message: str) -> list[str]:
    """The categories the cues point to, the likeliest first; empty: no crisis."""
    found: list[str] = []
    kind = cues.kind(message)
    if kind is not None:  # a named crisis beyond suicide, voiced without a suicidal cue
        found.append(_KINDS[kind])
    elif risk := cues.risk(message):
        found.append("suicidal_ideation")
        if risk == "indirect":  # a hint, not a statement: the runner-up is that nothing is wrong
            found.append("no_crisis")
    if _RELIANCE.search(message):
        found.append("emotional_reliance")
    elif cues.distorted(message):
        found.append("psychosis_or_delusion")
    return found


def label_reply(messages: list[dict[str, str]]) -> str:
    """The bot's answer to the last user turn, in one of several shapes chosen by the message's hash."""
    request = messages[-1]["content"]
    match = _MESSAGE.search(request)
    if match is None:
        return "Sure, happy to help with that."
    offered = set(_OFFERED.findall(request))
    message = match.group(1)
    shape = int(hashlib.sha256(message.encode()).hexdigest(), 16) % 6
    found = [c for c in judge(message) if c in offered] or ["no_crisis"]
    if len(found) > 1 and shape == 0:
        return f"Either {found[0]} or {found[1]}; it is hard to tell from one message."
    label = found[0]
    return [
        label,
        f'"{label}"',
        json.dumps({"label": label}),
        f"{label.replace('_', ' ').capitalize()}.",
        f"Category: {label}",
        f"{label}\n\nThe message shows signs that fit this category best.",
    ][shape]
