"""A PostgreSQL server of the bench's own: a fresh cluster on a free port, from the binaries this machine has, so a
scale-out measurement neither needs nor disturbs a shared server, and its CPU can be read."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg

from bench.ports import free_port

# A cluster as a production server has it, with room for every worker's pool; the bench does not tune it.
SETTINGS = {"listen_addresses": "127.0.0.1", "max_connections": "500", "shared_buffers": "256MB"}
# Where the server's time goes, statement by statement, when the binaries ship the extension (contrib).
STATEMENTS = {"shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "all"}


def binaries() -> Path | None:
    """The folder holding `initdb` and `postgres`: on PATH, from pg_config, or Debian's /usr/lib/postgresql/*."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    if pg_config := shutil.which("pg_config"):
        return Path(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout.strip())
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(f.split("/")[-2]))
    return Path(folders[-1]) if folders else None


class OwnPostgres:
    """`postgres` on 127.0.0.1:`port` with a cluster in a temporary folder, trust auth, user `postgres`; stopped
    and removed by `close()`. As root the server runs as the `postgres` user (it refuses to run as root)."""

    def __init__(self, workdir: Path | None = None) -> None:
        folder = binaries()
        if folder is None:
            raise RuntimeError(
                "no PostgreSQL binaries (initdb, postgres) on this machine: pass --postgres-url"
            )
        self.port = free_port()
        self._dir = Path(workdir or tempfile.mkdtemp(prefix="helmbench-postgres-"))
        self._data = self._dir / "data"
        self._dir.mkdir(parents=True, exist_ok=True)
        self._as: list[str] = []
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self._dir, account.pw_uid, account.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        subprocess.run(
            [*self._as, str(folder / "initdb"), "-D", str(self._data), "-U", "postgres", "-A", "trust"],
            check=True,
            capture_output=True,
        )
        settings = SETTINGS | (
            STATEMENTS if (folder.parent / "lib" / "pg_stat_statements.so").exists() else {}
        )
        options = [f"-c{name}={value}" for name, value in settings.items()]
        self._proc = subprocess.Popen(
            [*self._as, str(folder / "postgres"), "-D", str(self._data), "-p", str(self.port)]
            + ["-k", str(self._dir), *options],
            stdout=subprocess.DEVNULL,
            stderr=(self._dir / "server.log").open("wb"),
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(self.url, connect_timeout=2):
                    break
            except psycopg.OperationalError:
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"postgres did not start (log: {self._dir / 'server.log'})") from None
                time.sleep(0.2)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def pid(self) -> int:
        """The postmaster's pid (runuser, where used, execs nothing: its one child is the postmaster)."""
        if not self._as:
            return self._proc.pid
        kids = Path(f"/proc/{self._proc.pid}/task/{self._proc.pid}/children").read_text().split()
        return int(kids[0]) if kids else self._proc.pid

    def cpu_seconds(self) -> float:
        """CPU seconds of the server so far: the postmaster, its backends (live ones and, through the
        postmaster's children counters, those that exited)."""
        return tree_cpu_seconds(self.pid)

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> OwnPostgres:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its descendants, live ones and reaped ones (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    used = sum(int(fields[i]) for i in (11, 12, 13, 14)) / tick  # its own, and its waited-for children's
    kids = Path(f"/proc/{pid}/task/{pid}/children")
    for kid in kids.read_text().split() if kids.exists() else ():
        used += tree_cpu_seconds(int(kid))
    return used


def reset_statements(url: str) -> bool:
    """Start counting the database's statements afresh; False where the server does not count them."""
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            conn.execute("SELECT pg_stat_statements_reset()")
    except psycopg.Error:
        return False
    return True


def top_statements(url: str, limit: int = 6) -> list[dict[str, Any]]:
    """The database's statements that took the server longest since `reset_statements`: calls, milliseconds in
    all (a wait for a lock counts: that is how a lock that makes writers queue shows) and the statement's start."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT calls, total_exec_time, query FROM pg_stat_statements"
            " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " ORDER BY total_exec_time DESC LIMIT %s",
            (limit,),
        ).fetchall()
    return [
        {"calls": int(calls), "ms": round(float(ms), 1), "statement": " ".join(str(query).split())[:90]}
        for calls, ms, query in rows
    ]
