"""A Redis connection reset before its first command is a lost connection on a worker's loop (uvloop), as it is on
asyncio's: redis-py's ConnectionError, which its retries and our handling of a lost Redis (the shared limits, the
queue, a shard's lease) expect."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import uvloop
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from app.redis_connection import redis_from_url, report_resets_as_lost
from tests.waits import eventually_async


@asynccontextmanager
async def resetting_server() -> AsyncIterator[str]:
    """A server that resets every connection as it accepts it, as a Redis going down can: its URL."""

    def reset(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST, not FIN
        writer.transport.abort()

    server = await asyncio.start_server(reset, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"redis://127.0.0.1:{port}/0"


def reset_before_first_write(redis: Redis) -> Redis:
    """Each new connection waits until it has seen the reset before it sends its first command, so the write meets
    a closed transport every time rather than when the timing happens to line up."""
    made = redis.connection_pool.connection_class

    class SeesTheResetFirst(made):  # type: ignore[misc, valid-type]
        async def _connect(self) -> None:
            await super()._connect()
            transport = self._writer.transport
            await eventually_async(transport.is_closing, what="the reset to reach the client")

    redis.connection_pool.connection_class = SeesTheResetFirst
    return redis


async def first_command_error(redis: Redis) -> BaseException:
    try:
        await redis.ping()
    except BaseException as exc:  # noqa: BLE001 - which error comes out is what is tested
        return exc
    finally:
        await redis.aclose()
    raise AssertionError("a reset connection answered")


def test_a_write_to_a_reset_connection_is_a_lost_connection_on_uvloop() -> None:
    async def errors() -> tuple[BaseException, BaseException, BaseException]:
        async with resetting_server() as url:
            plain = await first_command_error(reset_before_first_write(Redis.from_url(url)))
            ours = await first_command_error(reset_before_first_write(redis_from_url(url)))
            made_elsewhere = Redis.from_url(url)  # as arq makes its pools
            await report_resets_as_lost(made_elsewhere)
            taken_over = await first_command_error(reset_before_first_write(made_elsewhere))
        return plain, ours, taken_over

    plain, ours, taken_over = uvloop.run(errors())
    # What the wrapper is for: redis-py's own connection lets uvloop's error through, which nothing that handles
    # a lost Redis catches.
    assert isinstance(plain, RuntimeError) and "handler is closed" in str(plain), repr(plain)
    assert isinstance(ours, RedisConnectionError), repr(ours)
    assert isinstance(taken_over, RedisConnectionError), repr(taken_over)


@pytest.mark.redis
async def test_a_client_taken_over_closes_what_it_had_and_uses_only_connections_of_ours(
    redis_url: str,
) -> None:
    client = Redis.from_url(redis_url)
    try:
        await client.ping()  # arq pings the pools it makes
        pool = client.connection_pool
        before = await pool.get_connection()
        await pool.release(before)
        await report_resets_as_lost(client)
        assert not before.is_connected
        assert await client.ping()
        after = await pool.get_connection()
        await pool.release(after)
        assert after is not before and type(after).__name__ == "ResetIsLostConnection"
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("redis://127.0.0.1:6379/0", "Connection"),
        ("rediss://127.0.0.1:6379/0", "SSLConnection"),
        ("unix:///tmp/redis.sock", "UnixDomainSocketConnection"),
    ],
)
def test_each_kind_of_url_keeps_its_own_connection(url: str, kind: str) -> None:
    connection_class = redis_from_url(url).connection_pool.connection_class
    assert connection_class.__bases__[-1].__name__ == kind
