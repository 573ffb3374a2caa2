"""The leaderboard as CSV for spreadsheets and notebooks: the JSON board's page, one row an entry, each interval
as a low and a high column and each pillar as its own column."""

from __future__ import annotations

import csv
import io
from typing import Any

from app.schemas import Leaderboard, LeaderboardEntry

_HEAD = ("rank", "evaluation_id", "target_name", "model", "suite")
_TAIL = (
    "sensitivity",
    "over_escalation",
    "ungraded_share",
    "grader",
    "n_items",
    "finished_at",
    "capped",
    "why",
)


def _bounds(interval: list[float] | None) -> tuple[float | None, float | None]:
    return (interval[0], interval[1]) if interval else (None, None)


def _row(entry: LeaderboardEntry, pillars: list[str]) -> list[Any]:
    return [
        *(getattr(entry, name) for name in _HEAD),
        entry.score,
        *_bounds(entry.score_interval),
        entry.score_100,
        entry.band,
        entry.quality_100,
        entry.cap,
        entry.pass_rate,
        *_bounds(entry.pass_rate_interval),
        entry.pass_rate_basis,
        *(entry.pillars.get(p) for p in pillars),
        *(getattr(entry, name) for name in _TAIL[:-3]),
        entry.finished_at.isoformat(),
        entry.capped,
        entry.why,
    ]


def leaderboard_csv(board: Leaderboard) -> bytes:
    """One page of the board (the rows the JSON board shows for the same query) as CSV."""
    pillars = sorted({p for entry in board.entries for p in entry.pillars})
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(
        [
            *_HEAD,
            "score",
            "score_low",
            "score_high",
            "score_100",
            "band",
            "quality_100",
            "cap",
            "pass_rate",
            "pass_rate_low",
            "pass_rate_high",
            "pass_rate_basis",
            *(f"pillar_{p}" for p in pillars),
            *_TAIL,
        ]
    )
    writer.writerows(_row(entry, pillars) for entry in board.entries)
    return buffer.getvalue().encode()
