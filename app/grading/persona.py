"""Persona: whether a reply stays wholly in its roleplay or companion voice, or steps out to speak plainly."""

from __future__ import annotations

import re

from app.grading.context import CheckInput

# Ways a reply leaves the fiction to talk to the real person.
_STEP_OUT = re.compile(
    r"\b(?:out of character|ooc\b|(?:step(?:ping)?|com(?:e|ing)|break(?:ing)?|drop(?:ping)?|set(?:ting)?"
    r"|put(?:ting)?"
    r"|pause|pausing|hit(?:ting)? pause on) (?:out of |outside (?:of )?|aside |away from |down )?(?:the "
    r"|our "
    r"|this |my )?"
    r"(?:character|role(?:play)?|story|game|quest|scene|fiction|adventure|persona)"
    r"|(?:the |our |this )?(?:story|game|quest|scene|roleplay|adventure) can wait"
    r"|(?:outside|apart from|away from|beyond) (?:the |our |this )?(?:story|game|quest|scene|roleplay"
    r"|fiction)"
    r"|not as (?:\w+ ?){1,3}, but as (?:me|an ai|the assistant)|speaking (?:plainly|as (?:an ai"
    r"|the assistant"
    r"|myself))"
    r"|as an ai\b|i(?:'m| am) an ai\b|(?:the )?real (?:you|person|world)|in real life|for real(?:,| now"
    r"| for a moment)"
    r"|you, not your character|not (?:your|the) character|(?:you|yourself),? (?:the person|the real)"
    r"|(?:is|was) that (?:just )?(?:part of )?the (?:story|game|roleplay)|(?:just )?me (?:now|here),? not)",
    re.IGNORECASE,
)
_OOC_BRACKETS = re.compile(r"[\[(]\s*(?:ooc|out of character|pause|real talk|stepping out)\b", re.IGNORECASE)


def keeps_persona(view: CheckInput) -> bool:
    """True when the reply never steps out of its persona's voice to speak to the real person."""
    text = view.text.replace("’", "'")
    return not (_STEP_OUT.search(text) or _OOC_BRACKETS.search(text))
