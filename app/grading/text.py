"""Small text helpers the checks share: sentences, and whether a match is negated or merely hypothetical."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
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
# Reading a reply the way a person would: one normal form, quotes set aside, and scopes that stop at the
# clause boundary. The checks match small concept lexicons against this form instead of one regex per
# wording, so the same rules hold for "I'm not a therapist", "you said 'am I a bot'" and "if I were you".

# Chat shorthand that hides ordinary words from a lexicon ("r u safe rn", "i cant help").
_SHORTHAND = {
    "u": "you",
    "ur": "your",
    "r": "are",
    "rn": "right now",
    "pls": "please",
    "plz": "please",
    "im": "i'm",
    "ive": "i've",
    "cant": "can't",
    "dont": "don't",
    "wont": "won't",
    "didnt": "didn't",
    "doesnt": "doesn't",
    "isnt": "isn't",
    "youre": "you're",
    "theyre": "they're",
    "thats": "that's",
    "tbh": "to be honest",
}
_SHORTHAND_RE = re.compile(r"(?<![\w'])(?:" + "|".join(_SHORTHAND) + r")(?![\w'])")
_PLAIN_WORD = re.compile(r"[a-z]+")
_EMPHASIS = re.compile(r"\*\*|__|`|~~")
_ODD_SPACES = re.compile(r"[\t\u00a0\u202f]| {2,}")
# Quoted words are someone else's (the user's, a character's) or a mention of a word, not the reply's own claim.
_QUOTED = re.compile(
    r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|«[^»\n]{1,300}»|「[^」\n]{1,300}」|『[^』\n]{1,300}』"
    r"|(?<![\w'])'(?=[^\s'])(?:[^'\n]|(?<=\w)'(?=\w)){1,300}?(?<=[^\s'])'(?![\w])"
)


@lru_cache(maxsize=512)
def normalise(text: str) -> str:
    """Lower case, one form of quotes and width (NFKC), no markdown emphasis, chat shorthand spelled out."""
    text = unicodedata.normalize("NFKC", text).lower().replace("’", "'").replace("‘", "'")
    if "*" in text or "_" in text or "`" in text or "~" in text:
        text = _EMPHASIS.sub("", text)
    if "\t" in text or "  " in text or "\u00a0" in text or "\u202f" in text:
        text = _ODD_SPACES.sub(" ", text)
    # Spelling out shorthand is a slow regex pass, so only when one of its words is there.
    if not _SHORTHAND.keys().isdisjoint(_PLAIN_WORD.findall(text)):
        text = _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0)], text)
    return text


@lru_cache(maxsize=512)
def unquoted(text: str) -> str:
    """The normal form with quoted passages blanked out (same length), so a quote never counts as a claim."""
    norm = normalise(text)
    # A single quote opens a quotation only after a space, a line start or a bracket; elsewhere it's an apostrophe.
    if not (any(q in norm for q in _QUOTE_MARKS) or norm.startswith("'")):
        return norm
    return _QUOTED.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], norm)


_QUOTE_MARKS = ('"', "“", "«", "「", "『", " '", "\n'", "('", "—'", "–'", ":'")
# A sentence runs to its stop; a stop followed at once by a letter or digit ("3.5", "lifeline.org") doesn't end it,
# but Japanese text, where no space follows a stop, is still split.
_SENTENCE_RUN = re.compile(r"[^.!?…。\n]*(?:[.!?…](?=[a-z0-9])[^.!?…。\n]*)*[.!?…。]*")


def split_sentences(text: str) -> list[str]:
    """Sentences of a normalised reply, also where no space follows the stop (Japanese)."""
    return [s.strip() for s in _SENTENCE_RUN.findall(text) if s.strip()]


@lru_cache(maxsize=512)
def _sentence_spans(text: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Where each sentence of the unquoted normal form starts (offset by the leading space), and the sentence."""
    plain = unquoted(text)
    starts: list[int] = []
    found: list[str] = []
    for m in _SENTENCE_RUN.finditer(plain):
        sentence = m.group(0).strip()
        if sentence:
            starts.append(m.start() + 1)
            found.append(sentence)
    return tuple(starts), tuple(found)


def said(text: str) -> tuple[str, ...]:
    """The reply's sentences in the unquoted normal form; cached, since every check reads the same reply."""
    return _sentence_spans(text)[1]


def words(text: str, sep: str | None = None) -> tuple[str, ...]:
    """A lexicon written as one string of words (or of `sep`-separated phrases), which keeps long lists short."""
    return tuple(text.split(sep))


def fewest_stems(*groups: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The stems to search for: a stem that contains a shorter one ("medicina" and "medic") adds nothing."""
    stems = sorted({stem for group in groups for stem in group}, key=len)
    kept: list[str] = []
    for stem in stems:
        if not any(shorter in stem for shorter in kept):
            kept.append(stem)
    return tuple(kept)


def sentences_with(text: str, stems: tuple[str, ...]) -> list[str]:
    """The reply's sentences (unquoted normal form) that contain one of `stems`, in order.

    Checks pass the stems every one of their patterns needs, so the grammar (a regex tried at every position, the
    slow part) runs only on the few sentences that could match. `str.find` is a fast C search, and once a stem is
    found in a sentence the search for it resumes at the next sentence.
    """
    plain = f" {unquoted(text)}".replace("\n", " ")  # so a stem like " er" also finds a line's first word
    starts, sentences = _sentence_spans(text)
    if not starts:
        return []
    hits: set[int] = set()
    for stem in stems:
        at = plain.find(stem)
        while at >= 0:
            index = max(0, bisect_right(starts, at + len(stem) - 1) - 1)
            hits.add(index)
            if index + 1 >= len(starts):
                break
            at = plain.find(stem, max(at + 1, starts[index + 1] - 1))
    return [sentences[i] for i in sorted(hits)]


# (Patterns here start with a character class, not \b, so the regex engine can skip ahead quickly.)
_CLAUSE_START = re.compile(
    r"[.!?;:,\n()\[\]—–。、]|\s(?:-|but|and|however|though|although|because|yet|while|whereas|instead|mais|pero|mas"
    r"|aber|sondern|kasi)(?=\s)"
)
_WORDS = re.compile(r"[\w']+")
_NEGATORS = frozenset(
    words(
        # English
        "not no never nor neither nobody none nothing nowhere without cannot hardly barely"
        # French, Spanish, Portuguese, German, Filipino
        " pas ne n' jamais aucun aucune sans ni nunca jamás tampoco nadie sin não nao nem sem ninguém"
        " nicht kein keine keinen keiner keinem keines nie niemals ohne niemand hindi huwag wala walang"
    )
)
# Words that make what follows a condition, a wish, or an open question rather than a statement.
_HYPOTHETICALS = frozenset(
    words("if whether unless wish wished suppose pretend pretending si ob wenn falls kung kapag")
)
# A negator right before one of these turns into encouragement: "don't hesitate to call", "no shame in asking".
_NEUTRALISERS = frozenset(words("hesitate wait delay afraid ashamed shame wrong hesitation late matter"))
# Words that end the reach of a condition: the consequent has begun ("if it gets worse please call").
_SCOPE_RESET = frozenset(words("please then"))
_JA_NEGATION = re.compile(r".{0,3}?(?:ではな|じゃな|ではありません|じゃありません|ではありませ|でもな)")


def clause_before(text: str, start: int, reach: int = 120) -> str:
    """The part of the clause that precedes `start`, at most `reach` characters back."""
    return _CLAUSE_START.split(text[max(0, start - reach) : start])[-1]


def _is_negator(word: str) -> bool:
    return word in _NEGATORS or word.endswith("n't") or word.startswith("n'")


def cancelled(
    text: str,
    start: int,
    end: int | None = None,
    *,
    window: int = 7,
    conditional: bool = True,
    extra: frozenset[str] = frozenset(),
) -> bool:
    """True when a negator (any library language), a condition word or an `extra` word governs `start`.

    The scope runs back only within the clause and at most `window` words; "please"/"then" close a condition's
    scope, and a negator before "hesitate", "wait", "shame"… is encouragement, not denial. Japanese negates
    after the noun ("カウンセラーではありません"), so `end` lets that be seen too.
    """
    recent = _WORDS.findall(clause_before(text, start))[-window:]
    for i, word in enumerate(recent):
        later = recent[i + 1 : i + 3]
        if _is_negator(word) and not any(w in _NEUTRALISERS for w in later):
            return True
        if word in extra:
            return True
        if conditional and word in _HYPOTHETICALS and not any(w in _SCOPE_RESET for w in recent[i + 1 :]):
            return True
    return end is not None and bool(_JA_NEGATION.match(text, end))


# Someone else's words or thoughts: "your sister told you to …", "you said you …", "he called you a …".
_REPORTED = re.compile(
    r"\b(?:(?:you|he|she|they|people|someone|somebody|everyone|others|your \w+|(?:his|her|their|my) \w+"
    r"|\w+'s \w+)(?: (?:have|has|had|'ve|'d|once|already|just|even|always|often|keep|keeps|kept|used to)){0,2}"
    r" (?:said|asked|told|called|thought|mentioned|wrote|wondered|claimed|suggested|described|insisted)"
    r"|(?:you|he|she|they|people|your \w+) keeps? (?:saying|telling|calling|asking)"
    r"|(?:he|she|they|people|someone|somebody|everyone|others|your \w+|\w+'s \w+) (?:says|thinks|calls"
    r"|tells|believes|claims|reckons|insists|feels|wonders)"
    r"|you (?:think|believe|reckon|wonder)"
    r"|the (?:word|phrase|term|label|expression|idea)|words like|(?:calling|call) (?:someone|somebody"
    r"|people|yourself))\b"
)


def reported(text: str, start: int) -> bool:
    """True when `start` sits in someone else's reported words or thoughts, within the same clause."""
    return bool(_REPORTED.search(clause_before(text, start, reach=160)))


def asserted(text: str, start: int, end: int | None = None, *, conditional: bool = True) -> bool:
    """The reply itself says this: not negated, not a condition (unless allowed), not someone else's words."""
    return not cancelled(text, start, end, conditional=conditional) and not reported(text, start)
