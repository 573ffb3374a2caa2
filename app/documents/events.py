"""The data of the Server-Sent Events the API streams: each event's name and its JSON payload."""

from __future__ import annotations

from pydantic import Field

from app.documents.figures import Document
from app.store.statuses import Status


class ConcurrencyWindow(Document):
    limit: float
    maximum: int
    in_flight: int


class EvaluationProgress(Document):
    """`progress` (on each change) and the final `end`: the evaluation's tallies so far."""

    status: Status
    total: int
    done: int
    failed: int
    graded: int
    passed: int
    retries: int
    errors_by_class: dict[str, int]
    window: ConcurrencyWindow | None = Field(
        description="The target's adaptive concurrency window while its calls run in the API process; null "
        "with workers or once over."
    )
    stalled: str | None = Field(description="Why a running evaluation has written nothing for a while.")
    pass_rate: float | None
    rate_limited: int


EVALUATION_EVENTS = {
    "progress": (
        EvaluationProgress,
        "whenever more items are done, or the status or stall changes; id: items done.",
    ),
    "end": (EvaluationProgress, "once, when the evaluation is over (the stream then closes)."),
}
