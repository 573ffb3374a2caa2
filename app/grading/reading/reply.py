"""Read a target's raw reply: the text the user sees and, for tag scenarios, the routing tags."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
_BRACE = re.compile(r"\{")
_NOT_TAG = re.compile(r"[^A-Z0-9]+")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedReply:
    text: str
    tags: list[str] | None
    problem: str | None = None


def first_json_object(raw: str) -> dict | None:
    """Finds the first decodable JSON object, tolerating code fences and prose around it."""
    cleaned = raw.strip()
    if "```" in cleaned:  # (the fence pattern, tried at every position, is the slow part of reading a reply)
        cleaned = _FENCE.sub("", cleaned)
    for match in _BRACE.finditer(cleaned):
        try:
            obj, _ = _DECODER.raw_decode(cleaned[match.start() :])
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def normalise_tag(tag: str) -> str:
    return _NOT_TAG.sub("_", tag.strip().upper()).strip("_")


def parse_reply(raw: str, expects_tags: bool) -> ParsedReply:
    """Text scenarios pass through; tag scenarios must yield a JSON object with `response` and `tags`."""
    if not expects_tags:
        return ParsedReply(text=raw, tags=None)
    obj = first_json_object(raw)
    if obj is None:
        return ParsedReply(text=raw, tags=None, problem="no JSON object with tags in the reply")
    text = obj.get("response")
    tags = obj.get("tags", obj.get("category"))
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return ParsedReply(
            text=text if isinstance(text, str) else raw,
            tags=None,
            problem="the reply's 'tags' is missing or not a list of strings",
        )
    return ParsedReply(text=text if isinstance(text, str) else "", tags=[normalise_tag(t) for t in tags])
