"""Fair shares between evaluations: every queued job carries a rank, and a free place takes the lowest rank.

Why not oldest first: a big run queues all its shards at once, so a quick run queued a moment later waited behind
every one of them (a 3 s run finished after 326 s, behind a full x 7 run). An evaluation's shard k is ranked
`head + k`, where the head is the lowest rank still waiting (the one served next): a newcomer's first shard lands
beside the head, its second beside the head's follower, and so on. The shards of the evaluations waiting then
interleave one for one (round robin by shards served, whatever their sizes), while a run alone still fills every
free place at once, as before. A job queued again (a lost shard, a range of a grade batch) is ranked at the head.

Ranks are relative only: when nothing waits, the head is the last rank taken (or 0 on an empty queue).
"""

from __future__ import annotations

from collections.abc import Iterable


def head_rank(waiting: Iterable[float], taken: Iterable[float] = ()) -> int:
    """The rank served next: the lowest waiting one; when none waits, the highest taken one; else 0."""
    waiting_ranks = [int(r) for r in waiting]
    if waiting_ranks:
        return min(waiting_ranks)
    return max((int(r) for r in taken), default=0)


def ranks(head: int, count: int) -> list[int]:
    """The ranks of `count` jobs queued together (an evaluation's shards in order): one per round from the head."""
    return [head + k for k in range(count)]
