"""Live progress of an evaluation as the events endpoint streams it: the shape and a line-by-line decoder."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from app.store.statuses import Status


class ProgressEvent(BaseModel):
    """One `progress` or `end` event: counters of items so far, the running pass rate, errors by class."""

    status: Status
    total: int
    done: int
    failed: int
    graded: int = 0
    passed: int = 0
    retries: int = 0
    errors_by_class: dict[str, int] = {}
    pass_rate: float | None = None
    rate_limited: int = 0
    stalled: str | None = None
    window: dict[str, float] | None = None
    end: bool = False


@dataclass
class SseDecoder:
    """Server-Sent Events fed one line at a time; remembers the last id so a reconnect resumes after it."""

    last_id: str | None = None
    _fields: dict[str, str] = field(default_factory=dict)

    def feed(self, line: str) -> ProgressEvent | None:
        """The event a blank line completes, else None (comments and partial events give nothing)."""
        if line and not line.startswith(":"):
            name, _, value = line.partition(":")
            self._fields[name] = value.removeprefix(" ")
            return None
        event, self._fields = self._fields, {}
        if "data" not in event:
            return None
        self.last_id = event.get("id", self.last_id)
        data: dict[str, Any] = json.loads(event["data"])
        return ProgressEvent.model_validate({**data, "end": event.get("event") == "end"})

    def headers(self) -> dict[str, str]:
        return {"Last-Event-ID": self.last_id} if self.last_id is not None else {}
