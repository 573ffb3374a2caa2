"""How a simulator's turn can be unusable, told from its text alone.

An LLM asked to play a user slips in known ways: it answers as the assistant (role inversion), shows its
reasoning or the instructions it was given, sends nothing, repeats the assistant's words or its own last turn, or
ends the conversation before there was one. Each slip would be charged to the target if it reached the
transcript (a target "failing" to answer a user who speaks like a helpdesk), so each is caught here, named, and
the turn asked again; what stays bad is a simulator error, counted apart from the target's results.
"""

from __future__ import annotations

import difflib
import re
from typing import Literal

SIMULATOR_ERROR = "simulator_error"  # the error class of an item whose conversation the simulator spoiled
Fault = Literal["role_inversion", "leaked_reasoning", "empty_turn", "echoed_turn", "early_stop"]
FAULTS: tuple[str, ...] = Fault.__args__  # type: ignore[attr-defined]

# The assistant's voice: a self-description as an AI, a speaker tag, or the openings of a supportive reply.
_ASSISTANT_VOICE = re.compile(
    r"(?:^\s*(?:assistant|ai|bot|chatbot)\s*:"
    r"|\bas an ai\b|\bi(?:'m| am) (?:just )?(?:an ai|a language model|an ai assistant|a virtual assistant)\b"
    r"|^\s*(?:it sounds like you(?:'re| are)|i(?:'m| am) (?:so |really |very )?sorry (?:to hear|that you)"
    r"|how can i (?:help|assist) you|i(?:'m| am) here (?:to help|to listen|for you)|thank you for sharing"
    r"|i hear you,? and)"
    r"|\bplease (?:reach out to|contact) (?:a|your) (?:mental health professional|local crisis)"
    r"|\bif you(?:'re| are) in (?:immediate )?danger,? please call\b)",
    re.IGNORECASE | re.MULTILINE,
)
# Reasoning or stage directions the user would never type: think blocks, talk about the card or the role.
_REASONING = re.compile(
    r"(?:</?think(?:ing)?>|<\|[a-z_]+\|>|\[(?:reminder|note|inner thoughts?)\b|\((?:reminder|note to self|thinking)\b"
    r"|\bpersona card\b|\bmy (?:persona|character|role) (?:is|would)\b|\bas the user,? i\b"
    r"|\bi (?:should|will|need to) (?:respond|reply|stay in character|play)\b|\bstop token\b"
    r"|\b(?:the )?simulat(?:ed|ion|or)\b|\bin character\b)",
    re.IGNORECASE,
)
_SPEAKER_TAG = re.compile(r"^\s*(?:user|me|human)\s*:\s*", re.IGNORECASE)
ECHO_RATIO = 0.9
SHORTEST_ECHO = 24
ECHO_WORDS = 0.6


def clean_turn(text: str) -> str:
    """The turn as a user would type it: a leading "User:" tag and wrapping quotes dropped, spaces trimmed."""
    text = _SPEAKER_TAG.sub("", text.strip())
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


def _same(a: str, b: str) -> bool:
    """Near-verbatim repetition. Short turns ("ok", "yeah idk") are left alone: people do repeat those."""
    a, b = " ".join(a.lower().split()), " ".join(b.lower().split())
    if min(len(a), len(b)) < SHORTEST_ECHO:
        return False
    if a == b or (len(a) > 2 * SHORTEST_ECHO and a in b):
        return True
    if 2 * min(len(a), len(b)) / (len(a) + len(b)) < ECHO_RATIO:
        return False  # the ratio cannot reach ECHO_RATIO: skip the quadratic comparison (most turns end here)
    wa, wb = set(a.split()), set(b.split())
    if len(wa & wb) < ECHO_WORDS * len(wa | wb):
        return False  # mostly other words: not a near-verbatim repeat, without building a matcher
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.quick_ratio() >= ECHO_RATIO and matcher.ratio() >= ECHO_RATIO


def turn_fault(text: str, history: list[dict[str, str]]) -> tuple[Fault, str] | None:
    """The first fault of a (cleaned) user turn given the conversation so far, with a short reason; None: usable."""
    if not text.strip():
        return "empty_turn", "the simulator sent an empty turn"
    if found := _REASONING.search(text):
        return (
            "leaked_reasoning",
            f"the turn shows the simulator's reasoning or instructions ({found.group(0)!r})",
        )
    if found := _ASSISTANT_VOICE.search(text):
        return "role_inversion", f"the turn speaks as the assistant ({found.group(0).strip()!r})"
    last_reply = next((m["content"] for m in reversed(history) if m["role"] == "assistant"), "")
    if _same(text, last_reply):
        return "echoed_turn", "the turn repeats the assistant's last reply"
    if any(_same(text, m["content"]) for m in history if m["role"] == "user"):
        return "echoed_turn", "the turn repeats an earlier user turn"
    return None


def cap_words(text: str, word_cap: int) -> str:
    """At most `word_cap` words: a longer turn is cut at a word, since the cap is ours to keep, not a fault."""
    words = text.split()
    if len(words) <= word_cap:
        return text
    return " ".join(words[:word_cap])
