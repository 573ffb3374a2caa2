"""A scripted user: walks an adaptive script, choosing each next turn by what the last reply was seen to do."""

from __future__ import annotations

from app.benchmark.conversations import ConversationScript
from app.conversations.user import Observation, UserTurn


class ScriptedUser:
    """Implements ConversationUser; `states` lists the state of every turn said, for grading."""

    def __init__(self, script: ConversationScript) -> None:
        self.script = script
        self.states: list[str] = []

    async def next_turn(self, history: list[dict[str, str]], observed: Observation | None) -> UserTurn:
        if not self.states:
            state: str | None = self.script.start
        else:
            seen = observed.to_dict() if observed is not None else {}
            state = self.script.next_state(self.states[-1], seen)
        if state is None:
            return UserTurn(None)
        self.states.append(state)
        return UserTurn(self.script.states[state].say)
