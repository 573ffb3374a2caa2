"""Redis connections that report a write to a reset socket as a lost connection, under uvloop as under asyncio.

Every async Redis client of ours takes them: the shared limits' (`redis_from_url`) and arq's pools, the API's and a
worker's (`report_resets_as_lost`). Why: a worker and the API run on uvloop, whose transport raises RuntimeError
("unable to perform operation on <TCPTransport closed=True …>; the handler is closed", MagicStack/uvloop#506) when
a write meets a connection its peer has already reset, where asyncio's own transport raises OSError (or nothing,
and the next read fails). redis-py turns OSError into its ConnectionError, which its retries and our handling of a
lost Redis expect, and lets the RuntimeError through. It happens when Redis restarts: a connection made as the
server goes down is reset before the client's first command (CLIENT SETINFO) is written, and the task that asked
ends on an error nothing handles.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError

_CLOSED = "the handler is closed"  # uvloop's words for a transport already closed


class _ResetIsLost:
    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        try:
            await super().send_packed_command(command, check_health)  # type: ignore[misc]
        except RuntimeError as exc:
            if _CLOSED not in str(exc):
                raise
            # (redis-py has already dropped the connection on the way out, as for any error while writing)
            raise RedisConnectionError(f"Error while writing to socket: {exc}") from exc


@cache
def _reset_is_lost(connection_class: type[AbstractConnection]) -> type[AbstractConnection]:
    """The URL's own connection class (plain, TLS or Unix socket), reporting a reset socket as lost."""
    return type(f"ResetIsLost{connection_class.__name__}", (_ResetIsLost, connection_class), {})


def _new_connections_report_resets(redis: Redis) -> Redis:
    pool = redis.connection_pool
    pool.connection_class = _reset_is_lost(pool.connection_class)
    return redis


def redis_from_url(url: str, **options: Any) -> Redis:
    """`Redis.from_url`, each of whose connections raises ConnectionError when it writes to a reset socket."""
    return _new_connections_report_resets(Redis.from_url(url, **options))


async def report_resets_as_lost(redis: Redis) -> None:
    """The same for a client made elsewhere (arq makes its pools and pings on them): the connections it made
    already are closed, so that every connection from now on is one of ours. Call it before the client is used."""
    pool = _new_connections_report_resets(redis).connection_pool
    await pool.disconnect()
    pool.reset()
