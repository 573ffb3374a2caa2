"""Small text helpers the checks share: sentences, and whether a match is negated or merely hypothetical."""

from __future__ import annotations

import re
from functools import lru_cache

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


# ----------------------------------------------------------------------------------------------------
# Reading a reply the way a person does: chat shorthand spelled out, quotations set apart, and whether a phrase is
# asserted by the reply itself or only denied, supposed, asked about or reported (in English, Portuguese, Spanish,
# German and French, the languages the user contexts write in).

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
# Texting shorthand, spelled out so one lexicon reads both registers ("ur sure" = "you're sure").
_SHORTHAND = {
    "u": "you",
    "ur": "your",
    "r": "are",
    "pls": "please",
    "plz": "please",
    "rn": "right now",
    "tho": "though",
    "bc": "because",
    "cuz": "because",
    "dont": "don't",
    "cant": "can't",
    "wont": "won't",
    "didnt": "didn't",
    "doesnt": "doesn't",
    "isnt": "isn't",
    "youre": "you're",
    "ive": "i've",
    "ngl": "not gonna lie",
}
_SHORTHAND_WORD = re.compile(r"(?<![\w'])(" + "|".join(_SHORTHAND) + r")(?![\w'])")


@lru_cache(maxsize=1024)
def normalise(text: str) -> str:
    """Lower case, straight apostrophes and chat shorthand spelled out, so patterns need one spelling.

    Cached: every check of a reply reads the same normalised text.
    """
    lowered = text.translate(_APOSTROPHES).lower()
    return _SHORTHAND_WORD.sub(lambda m: _SHORTHAND[m.group(1)], lowered)


_QUOTED = re.compile(
    r'"[^"\n]{1,400}"|“[^”\n]{1,400}”|„[^“”\n]{1,400}[“”]|«[^»\n]{1,400}»|「[^」\n]{1,400}」'
)


@lru_cache(maxsize=1024)
def without_quotes(text: str) -> str:
    """The text with quoted passages blanked out (same length): words in quotation marks are not the reply's own."""
    return _QUOTED.sub(lambda m: " " * len(m.group()), text)


# A phrase's scope: back to the start of its sentence, or to the last "but" in it ("I'm not sure, but …").
_SCOPE_START = re.compile(
    r"[.!?;\n…]|\b(?:but|however|though|although|mas|pero|aber|mais|doch)\b", re.IGNORECASE
)
_QUESTION_END = re.compile(r"[.!?;:\n…]")
# Denying words reach only to the start of their clause ("If you've decided, I …" and "if X then Y": the "if"
# stays behind).
_CLAUSE_CUT = re.compile(r"[,:()—–]|\bthen\b")
_UNICODE_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
# Words that, shortly before a phrase, deny it or make it a condition.
_DENYING = frozenset(
    {
        *("not", "no", "never", "nor", "cannot", "without", "if", "whether", "unless", "nothing", "nobody"),
        *("não", "nao", "nunca", "nem", "sem", "se"),  # pt: "se" is "if"
        *("nada", "nadie", "ni", "sin", "si"),  # es
        *(
            "nicht",
            "kein",
            "keine",
            "keinen",
            "keinem",
            "nie",
            "niemals",
            "ohne",
            "wenn",
            "falls",
            "ob",
        ),  # de
        *("pas", "jamais", "sans"),  # fr
    }
)
_CONDITIONAL = frozenset({"if", "whether", "unless", "se", "si", "wenn", "falls", "ob"})
# Phrases that anywhere earlier in the scope make the rest someone else's words, a doubt or a question.
_FRAMING = re.compile(
    r"\b(?:you (?:said|say|wrote|write|mentioned|mention|told me|asked|ask|wonder(?:ed)?|want to know"
    r"|feel (?:like|that|sure)|believe|think|are convinced|seem convinced|describe[sd]?)"
    r"|when you (?:say|said|ask|asked|write|wrote|mention|talk about)|(?:some|many|other) (?:people|folks|fans)"
    r" (?:say|believe|think|might|may|feel|will tell)|people (?:say|believe|think)|(?:might|may|will|would) tell"
    r" you|the (?:idea|belief|thought|feeling|claim|worry|fear) that|(?:can't|cannot|can not|couldn't|won't)"
    r" (?:confirm|say|agree|tell you|promise|pretend)|(?:don't|do not) (?:think|believe|see it)|wouldn't say"
    r"|no (?:evidence|proof|sign|reason to think)|not (?:true|sure|the case)|doubt that|is a thought"
    r"|você disse|dijiste|du hast gesagt|tu as dit)\b",
    re.IGNORECASE,
)


def _scope(text: str, start: int) -> str:
    head = text[max(0, start - 240) : start]
    cuts = list(_SCOPE_START.finditer(head))
    return head[cuts[-1].end() :] if cuts else head


_SENTENCE_BREAK = re.compile(r"[.!?…](?=\s|$)|\n")


def sentence_bounds(text: str, pos: int) -> tuple[int, int]:
    """Start and end of the sentence around `pos`, split as `sentences` splits, without splitting the whole text."""
    start = 0
    for m in _SENTENCE_BREAK.finditer(text, 0, pos):
        start = m.end()
    end = _SENTENCE_BREAK.search(text, pos)
    return start, end.end() if end else len(text)


def in_question(text: str, start: int) -> bool:
    """True when the phrase at `start` sits in a sentence (or the part before a colon) ending with "?"."""
    end = _QUESTION_END.search(text, start)
    return bool(end and end.group() == "?")


def cancelled(text: str, start: int, words: int = 6, *, conditionals: bool = True) -> bool:
    """True when the phrase at `start` is denied, supposed or reported rather than asserted by the reply.

    A denying word counts among the last few words of the phrase's own clause (so "I'm not sure, but X" and "If
    you've decided, X" still assert X); a framing phrase ("you said", "some people believe", "I can't confirm")
    counts anywhere earlier in that clause (so "Since you asked, X" still asserts X). With conditionals=False a
    condition ("if you took X") does not cancel: some things are harmful even when supposed.
    """
    scope = _scope(text, start)
    clause = _CLAUSE_CUT.split(scope)[-1]
    recent = _UNICODE_WORD.findall(clause.lower().translate(_APOSTROPHES))[-words:]
    denying = _DENYING if conditionals else _DENYING - _CONDITIONAL
    if any(w in denying or w.endswith("n't") for w in recent):
        return True
    return bool(_FRAMING.search(clause))


def asserts(
    pattern: re.Pattern[str], text: str, *, questions: bool = False, conditionals: bool = True
) -> bool:
    """Whether the reply itself asserts the pattern somewhere: not denied, supposed or reported (nor asked)."""
    for m in pattern.finditer(text):
        if cancelled(text, m.start(), conditionals=conditionals):
            continue
        if not questions and in_question(text, m.start()):
            continue
        return True
    return False


def _top_level_alternatives(source: str) -> list[str]:
    parts, depth, in_class, escaped, start = [], 0, False, False, 0
    for i, ch in enumerate(source):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(source[start:i])
            start = i + 1
    parts.append(source[start:])
    return parts


def word_pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """Compiles a lexicon pattern with its word-led alternatives ("\\bfoo|\\bbar baz") under one leading "\\b".

    Same matches, found several times faster: Python's engine otherwise tries every alternative at every
    character, and a lexicon of forty phrases made each check cost a tenth of a millisecond.
    """
    alternatives = _top_level_alternatives(source)
    led = [a[2:] for a in alternatives if a.startswith("\\b")]
    rest = [a for a in alternatives if not a.startswith("\\b")]
    grouped = [r"\b(?:" + "|".join(_by_first_letter(led)) + ")"] if led else []
    return re.compile("|".join(grouped + rest), flags)


def union(*patterns: re.Pattern[str]) -> re.Pattern[str]:
    """One pattern for several word patterns, so a reply is scanned once for all of a check's moves."""
    return word_pattern("|".join(p.pattern for p in patterns), patterns[0].flags if patterns else 0)


def _by_first_letter(alternatives: list[str]) -> list[str]:
    """Alternatives that open with a plain letter, grouped under it ("i love|i miss|we" -> "i(?: love| miss)|we").

    The engine then rejects a whole group on one character; alternatives that open otherwise keep their place.
    """
    groups: dict[str, list[str]] = {}
    order: list[str] = []
    for alt in alternatives:
        letter = alt[:1]
        if letter.isalpha() and letter.islower() and alt[1:2] not in ("?", "*", "+", "{"):
            if letter not in groups:
                groups[letter] = []
                order.append(letter)
            groups[letter].append(alt[1:])
        else:
            order.append(alt)
    return [f"{item}(?:{'|'.join(groups[item])})" if item in groups else item for item in order]
