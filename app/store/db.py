"""Engine and sessions. SQLite gets WAL and a busy timeout so the API and the in-process runner share it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from sqlalchemy import Engine, event, text
from sqlmodel import Session, create_engine

from app.config import Settings

CONNECT_TIMEOUT_S = 5
TCP_USER_TIMEOUT_MS = 20_000
POOL_TIMEOUT_S = 10


def json_text(value: Any) -> str:
    """A JSON column's text, written by orjson: a graded item row's columns (messages, checks, the 1–5 grade's
    parts) take ~4 µs instead of json.dumps's ~26, paid for every item a worker stores and read back by every
    report. Non-string keys become strings, as json.dumps makes them."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


JSON_CODEC: dict[str, Any] = {"json_serializer": json_text, "json_deserializer": orjson.loads}


def make_engine(settings: Settings) -> Engine:
    url = settings.sqlalchemy_url
    if url.startswith("sqlite"):
        settings.var_dir.mkdir(parents=True, exist_ok=True)
        # No cap on overflow: a request holds its session's connection while it waits for a worker thread,
        # so a capped pool smaller than the thread pool deadlocks under bursts (seen at 100 pollers). Kept
        # connections as many as the thread pool's threads (40): an overflow connection is closed when given
        # back, so under polling a smaller pool opened a connection (and ran its pragmas) per request.
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=40,
            max_overflow=-1,
            **JSON_CODEC,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            # Erased transcripts must not linger in free pages or freed cell space of the file: zero them.
            cur.execute("PRAGMA secure_delete=ON")
            cur.close()

        return engine
    # Pre-ping replaces a pooled connection the server dropped; the libpq options bound how long a dead network
    # can hold a call: a connect gives up after CONNECT_TIMEOUT_S, and a connection whose peer stopped answering
    # (keepalives unanswered, or sent data unacknowledged for TCP_USER_TIMEOUT_MS) is declared broken, so the
    # caller's retry (app/store/retry.py) gets an error instead of a thread blocked forever.
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=20,
        pool_timeout=POOL_TIMEOUT_S,
        **JSON_CODEC,
        connect_args={
            "connect_timeout": CONNECT_TIMEOUT_S,
            "keepalives": 1,
            "keepalives_idle": 10,
            "keepalives_interval": 3,
            "keepalives_count": 3,
            "tcp_user_timeout": TCP_USER_TIMEOUT_MS,
        },
    )


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session that commits on success and rolls back on error."""
    with Session(engine) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def checkpoint(engine: Engine) -> None:
    """After an erase on SQLite, copy the WAL into the file and empty it, so the erased text's older page
    images do not outlive it in the WAL; best effort (a reader holding an old snapshot defers it)."""
    if engine.dialect.name != "sqlite":
        return
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def ping(*, session: Session) -> None:
    """One round trip; raises whatever the driver raises when the database does not answer."""
    session.execute(text("SELECT 1"))
