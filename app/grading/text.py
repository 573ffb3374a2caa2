"""Small text helpers the checks share: sentences, and whether a match is negated or merely hypothetical."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")
_CLAUSE = re.compile(r"[.!?;:,\n—–]|\bbut\b|\band\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z']+")
# Words that, shortly before a phrase, deny it, make it a condition, or report it as someone else's question.
_CANCELLING = frozenset(
    [
        "not",
        "never",
        "no",
        "nor",
        "cannot",
        "can't",
        "won't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "without",
        "whether",
        "if",
        "mean",
        "means",
        "say",
        "tell",
        "rule",
        "unlikely",
        "nothing",
    ]
)


def sentences(text: str) -> list[str]:
    """Splits on sentence ends and line breaks; good enough for chat replies, and cheap."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def negated(text: str, start: int, words: int = 5) -> bool:
    """True when one of the few words before `start`, in the same clause, cancels the match."""
    clause = _CLAUSE.split(text[max(0, start - 80) : start])[-1]
    recent = _WORD.findall(clause.lower().replace("’", "'"))[-words:]
    return any(w in _CANCELLING or w.endswith("n't") for w in recent)


def any_affirmed(pattern: re.Pattern[str], text: str) -> bool:
    """Whether the pattern occurs at least once in an affirmative (not negated, not hypothetical) form."""
    return any(not negated(text, m.start()) for m in pattern.finditer(text))
