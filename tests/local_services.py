"""Where the tests find Redis and PostgreSQL: the variable when set, else the local default when it answers.

`make test` on a machine where the usual services run tests everything without a variable: a Redis database
number claimed for this run alone (developers sharing a machine and its Redis keep apart) and, per test, a fresh
PostgreSQL database. Where a service does not answer, `why` says so and its tests skip (a failure in CI).
"""

from __future__ import annotations

import atexit
import os
import uuid
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from redis import Redis

REDIS_VAR = "HELMBENCH_TEST_REDIS_URL"
POSTGRES_VAR = "HELMBENCH_TEST_POSTGRES_URL"
LOCAL_REDIS = "redis://127.0.0.1:6379"
LOCAL_POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"

# Database 0 is a developer's own deployment's, 15 the one .ci/run used to name; a run claims one between.
REDIS_DBS = range(1, 15)
CLAIM_KEY = "helmbench:test-run"
CLAIM_S = 2 * 3600  # a run killed before it releases its database frees it after this


@dataclass(frozen=True)
class Service:
    url: str | None
    why: str = ""  # why there is none, for the skip and the run's last lines


@cache
def redis() -> Service:
    """HELMBENCH_TEST_REDIS_URL, else a database of the local Redis that no other test run holds."""
    if url := os.environ.get(REDIS_VAR):
        return Service(url)
    from redis import Redis, RedisError

    token = f"{os.getpid()}-{uuid.uuid4().hex}"
    try:
        for db in REDIS_DBS:
            client = Redis.from_url(f"{LOCAL_REDIS}/{db}", socket_connect_timeout=1, socket_timeout=5)
            if client.set(CLAIM_KEY, token, nx=True, ex=CLAIM_S):
                _CLAIMS.append((client, token))
                return Service(f"{LOCAL_REDIS}/{db}")
            client.close()
    except (RedisError, OSError) as exc:
        return Service(
            None, f"no Redis answers at {LOCAL_REDIS} ({type(exc).__name__}) and {REDIS_VAR} is unset"
        )
    return Service(None, f"every database {REDIS_DBS.start}-{REDIS_DBS.stop - 1} of the local Redis is held")


_CLAIMS: list[tuple[Redis, str]] = []


def release_claims() -> None:
    """Frees every database this process claimed. Called when pytest ends and again at exit: an xdist worker whose
    exit outlasts execnet's grace is ended by os._exit, where atexit handlers never run."""
    while _CLAIMS:
        _release(*_CLAIMS.pop())


atexit.register(release_claims)


def _release(client: Redis, token: str) -> None:
    """Frees the claimed database for the next run, unless its claim lapsed and another run holds it now."""
    from redis import RedisError

    try:
        if client.get(CLAIM_KEY) == token.encode():
            client.delete(CLAIM_KEY)
        client.close()
    except RedisError:
        pass


@cache
def postgres() -> Service:
    """HELMBENCH_TEST_POSTGRES_URL, else the local server as user postgres: tests create databases of their own."""
    if url := os.environ.get(POSTGRES_VAR):
        return Service(url)
    import psycopg

    try:
        with psycopg.connect(LOCAL_POSTGRES, connect_timeout=2, autocommit=True) as conn:
            (may_create,) = conn.execute(
                "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user"
            ).fetchone() or (False,)
    except psycopg.Error as exc:
        return Service(
            None,
            f"no PostgreSQL answers at {LOCAL_POSTGRES} ({type(exc).__name__}) and {POSTGRES_VAR} is unset",
        )
    if not may_create:
        return Service(
            None, f"user postgres at 127.0.0.1:5432 may not create databases and {POSTGRES_VAR} is unset"
        )
    return Service(LOCAL_POSTGRES)
