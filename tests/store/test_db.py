"""Engines: SQLite shared by the API and the in-process runner (WAL, foreign keys), sessions that commit or roll
back as a whole, and a ping that answers."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, select

from app.config import Settings
from app.store.db import make_engine, ping, session_scope
from app.store.models import Team


def test_sqlite_is_made_in_the_var_dir_with_wal_and_foreign_keys(tmp_path: Path) -> None:
    engine = make_engine(Settings(var_dir=tmp_path / "fresh" / "var"))
    try:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert (tmp_path / "fresh" / "var").is_dir()
    finally:
        engine.dispose()


def test_a_session_scope_commits_on_success_and_rolls_everything_back_on_error(sqlite: Engine) -> None:
    with session_scope(sqlite) as session:
        session.add(Team(name="kept"))
    with pytest.raises(RuntimeError), session_scope(sqlite) as session:
        session.add(Team(name="lost"))
        session.flush()
        raise RuntimeError("boom")
    with Session(sqlite) as session:
        assert [t.name for t in session.exec(select(Team))] == ["kept"]
        ping(session=session)


@pytest.mark.postgres
def test_postgres_engine_pings_and_replaces_a_connection_the_server_dropped(
    postgres_url: str, tmp_path: Path
) -> None:
    engine = make_engine(Settings(var_dir=tmp_path, database_url=postgres_url))
    try:
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        with psycopg.connect(postgres_url, autocommit=True) as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with Session(engine) as session:
            ping(session=session)  # the pooled connection was dropped: pre-ping replaced it
    finally:
        engine.dispose()
