"""The queue the API talks to. Job ids are fixed per shard, so a repeated enqueue does nothing twice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from app.lease_timing import renew_every_s

ShardState = Literal["queued", "running"]


class QueueUnavailable(Exception):
    """The queue could not be reached; the database still holds the work, and the reconciler queues it later."""


def shard_job_id(evaluation_id: str, shard: int) -> str:
    return f"{evaluation_id}:shard:{shard}"


def lost_shard_grace_s(lease_s: float) -> float:
    """How long a shard must look neither queued nor held before it is queued again: three renewals, so a live
    holder whose Redis came back empty has put its hold back first (a shard run twice costs calls, not rows)."""
    return 3 * renew_every_s(lease_s)


def grade_batch_job_id(batch_id: str, shard: int) -> str:
    return f"{batch_id}:grade:{shard}"


class JobQueue(Protocol):
    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        """Queue every shard; returns how many were newly queued."""
        ...

    async def shard_states(self, evaluation_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        """Which of these shards wait in the queue and which a live process holds; absent ones are neither."""
        ...

    async def requeue_shard(self, evaluation_id: str, shard: int) -> bool:
        """Queue one shard again unless it is queued or held; True if it was queued now."""
        ...

    async def enqueue_grade_batch(self, batch_id: str, shards: int) -> int:
        """Queue the jobs that grade a batch's line ranges; returns how many were newly queued (a job already
        queued or running is left as it is)."""
        ...

    async def grade_batch_states(self, batch_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        """As shard_states, for a grade batch's line ranges."""
        ...

    async def requeue_grade_batch(self, batch_id: str, shard: int) -> bool:
        """Queue one line range of a batch again unless it is queued or held; True if it was queued now."""
        ...

    async def drop(self, job_ids: Sequence[str]) -> int:
        """Remove these jobs where they still wait (their subject was deleted); a job already running is left
        to end by itself. Returns how many were removed."""
        ...

    async def depth(self) -> int:
        """Shard jobs queued or running (for /metrics)."""
        ...

    async def ping(self) -> None:
        """Raise if the queue cannot take jobs."""
        ...

    async def close(self) -> None: ...
