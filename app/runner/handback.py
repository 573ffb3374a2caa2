"""How a job hands its work back: one exception, raised by a shard and by a grade batch alike.

A stopping process finishes what is in flight and gives the rest back to the queue; every queue (arq, the
in-process one, the database-leased one) catches this one type and makes the job claimable again at once,
without counting it as a failure. A result string would let a queue that forgot to look for it mark the job done.
"""

from __future__ import annotations


class HandedBack(Exception):
    """The process is stopping: the job's unfinished work goes back to the queue for another process."""
