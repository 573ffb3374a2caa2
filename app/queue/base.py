"""The queue the API talks to. Job ids are fixed per shard, so a repeated enqueue does nothing twice."""

from __future__ import annotations

from typing import Protocol


def shard_job_id(evaluation_id: str, shard: int) -> str:
    return f"{evaluation_id}:shard:{shard}"


class JobQueue(Protocol):
    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        """Queue every shard; returns how many were newly queued."""
        ...

    async def depth(self) -> int:
        """Shard jobs queued or running (for /metrics)."""
        ...

    async def ping(self) -> None:
        """Raise if the queue cannot take jobs."""
        ...

    async def close(self) -> None: ...
