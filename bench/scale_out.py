"""Scale-out: one `helmbench serve` and N `helmbench worker` processes on PostgreSQL and Redis of the bench's own,
against several mock processes sharing one port; the real suite through the API, once per N.

    python -m bench.scale_out                                      # N = 1 2, C = 256, the full suite
    python -m bench.scale_out --workers 1 2 4 8 12 --concurrency 2048 256 --mocks 6 --repeats 10
    python -m bench.scale_out --postgres-url postgresql://postgres@127.0.0.1:5432/test \\
        --redis-url redis://127.0.0.1:6379/10                      # servers already running instead

PostgreSQL: a fresh cluster from the binaries the machine has (bench/postgres_server.py), else --postgres-url's
server, where each N gets a database of its own (dropped after). Redis: a redis-server of the bench's own, else
--redis-url (each N a queue name of its own). The mocks (200 ms by default) are `--mocks` processes on one port
(SO_REUSEPORT: one process tops out near a core's worth of requests); their counts are read from each one's own
port. Each N is a deployment of its own, timed once every worker has said it takes jobs (bench/deployment.py), and
its run goes as bench/api_e2e.py's: a target with max_concurrency C, POST /v1/evaluations, polled until settled.

Per N and C it prints: calls/s, % of the ideal C / latency, speed-up over the first N, CPU milliseconds per call
of the workers, the API, PostgreSQL and Redis (the last two only for servers of the bench's own: a shared server's
CPU is not this run's), the mocks' peak in flight (each process's peak, added), and whether every item was stored
once (rows = distinct keys = items), and the calls/s while calls went (the mocks' first request to their last
answer: without the POST's planning and the report at the end). One JSON line per run, and one at the end with
every run. Where the server's binaries ship pg_stat_statements, a second table gives PostgreSQL's longest statements
in each run (its own cluster only): time in a statement counts its waits for locks, so what makes workers queue for
each other shows there (the extension's own bookkeeping is in the PostgreSQL CPU column too).

Why `--repeats` on a big machine: at 8,000 calls/s the full suite's 15,000 calls take under two seconds, so the
fixed half second or so of a run (POST to the first call, the last answer to the settled status) would cap it
near 75% of the ideal however many workers run; x 10 makes it a twentieth of the run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import psycopg

from bench import deployment
from bench.api_e2e import BENCH_SETTINGS, MockCounts, load, run_full_suite, server_cpu_s, speed_unit
from bench.board import cpu_seconds
from bench.ports import free_port, wait_http
from bench.postgres_server import OwnPostgres, reset_statements, top_statements
from bench.redis_server import OwnRedis

Clock = Callable[[], float]


@contextlib.contextmanager
def mock_pool(count: int, latency: float) -> Iterator[MockCounts]:
    """`count` mock processes on one port, each with a port of its own for its counts."""
    port, own = free_port(), [free_port() for _ in range(count)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.mock_target", "--port", str(port), "--latency", str(latency)]
            + ["--stats-port", str(stats_port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for stats_port in own
    ]
    try:
        urls = [f"http://127.0.0.1:{stats_port}" for stats_port in own]
        for url in urls:
            wait_http(f"{url}/health", timeout=60)
        yield MockCounts(f"http://127.0.0.1:{port}", urls)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)


def stored(database_url: str, evaluation_id: str) -> tuple[int, int]:
    """Rows the run wrote and distinct item keys among them."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT count(*), count(DISTINCT key) FROM evaluation_item WHERE evaluation_id = %s",
            (evaluation_id,),
        ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def per_call_ms(seconds: float | None, calls: int) -> float | None:
    return round(1000 * seconds / calls, 3) if seconds is not None and calls else None


def one_deployment(
    n: int,
    args: argparse.Namespace,
    postgres_url: str,
    redis_url: str,
    mocks: MockCounts,
    clocks: dict[str, Clock],
) -> list[dict[str, Any]]:
    """Serve + `n` workers on a fresh database; the suite at each concurrency."""
    runs = []
    with tempfile.TemporaryDirectory(prefix=f"helmbench-scale-{n}w-") as tmp:
        root = Path(tmp)
        env = deployment.environment(root) | BENCH_SETTINGS | {"HELMBENCH_MAX_MATRIX_ITEMS": "1000000"}
        with (
            deployment.scale_out(env, root, postgres_url, redis_url, "helmbench_scale") as scaled,
            deployment.running(scaled, root, n) as up,
            httpx.Client(
                base_url=up.url, headers={"Authorization": f"Bearer {up.admin_key}"}, timeout=60
            ) as api,
        ):
            cpu = partial(server_cpu_s, up.api.pid, [w.pid for w in up.workers])
            database_url = scaled["HELMBENCH_DATABASE_URL"]
            for c in args.concurrency:
                counting = "postgres" in clocks and reset_statements(database_url)
                before = {name: clock() for name, clock in clocks.items()}
                r = run_full_suite(
                    api,
                    mocks.url,
                    c,
                    cpu,
                    args.suite,
                    counts=mocks,
                    latency=args.latency,
                    repeats=args.repeats,
                )
                used = {name: clock() - before[name] for name, clock in clocks.items()}
                rows, keys = stored(database_url, r["evaluation_id"])
                run = {
                    "workers": n,
                    **r,
                    "postgres_cpu_ms_per_call": per_call_ms(used.get("postgres"), r["calls"]),
                    "redis_cpu_ms_per_call": per_call_ms(used.get("redis"), r["calls"]),
                    "stored_rows": rows,
                    "stored_keys": keys,
                    "stored_once": rows == keys == r["items"],
                    "calls_per_s_calling": round(r["calls"] / r["calls_s"], 1) if r.get("calls_s") else None,
                    "load": load(),
                    "unit_us": speed_unit(),
                    "postgres_statements": top_statements(database_url) if counting else None,
                }
                print(json.dumps({"run": f"C={c}, {n} workers", **run}), flush=True)
                runs.append(run)
    return runs


def table(runs: list[dict[str, Any]]) -> list[str]:
    """The runs as a Markdown table, speed-up over the first worker count at the same C."""
    first: dict[int, float] = {}
    lines = [
        "| C | workers | calls/s | of ideal | speed-up | calls/s while calling | CPU ms/call workers | API "
        "| PostgreSQL | Redis | peak in flight (at most) | stored = total | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(runs, key=lambda r: (r["concurrency"], r["workers"])):
        base = first.setdefault(r["concurrency"], r["calls_per_s"])
        cells = [
            r["concurrency"],
            r["workers"],
            f"{r['calls_per_s']:,.0f}",
            f"{r['pct_ideal']:.0f}%",
            f"{r['calls_per_s'] / base:.2f}x",
            "-" if r.get("calls_per_s_calling") is None else f"{r['calls_per_s_calling']:,.0f}",
            *(
                "-" if r[k] is None else f"{r[k]:.2f}"
                for k in (
                    "workers_cpu_ms_per_call",
                    "api_cpu_ms_per_call",
                    "postgres_cpu_ms_per_call",
                    "redis_cpu_ms_per_call",
                )
            ),
            r["mock_max_in_flight"],
            f"{r['stored_rows']:,} = {r['items']:,}: {'yes' if r['stored_once'] else 'NO'}",
            f"{r['load'][0]:.1f}",
        ]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    return lines


def statements_table(runs: list[dict[str, Any]]) -> list[str]:
    """Where PostgreSQL's time went in each run, its longest statements: milliseconds per 1,000 stored items."""
    lines = [
        "",
        "| C | workers | statement | calls | ms in all | ms per 1,000 items |",
        "|---|---|---|---|---|---|",
    ]
    counted = [r for r in runs if r.get("postgres_statements")]
    for r in sorted(counted, key=lambda r: (r["concurrency"], r["workers"])):
        for s in r["postgres_statements"]:
            per = 1000 * s["ms"] / max(r["stored_rows"], 1)
            cells = [r["concurrency"], r["workers"], f"`{s['statement']}`", s["calls"], s["ms"], f"{per:.1f}"]
            lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    return lines if counted else []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_out", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2], help="worker counts, one deployment each"
    )
    parser.add_argument(
        "--concurrency", type=int, nargs="+", default=[256], help="the target's max_concurrency"
    )
    parser.add_argument("--suite", default="full", help="a shorter look: quick")
    parser.add_argument(
        "--repeats", type=int, default=1, help="the suite x this in one run (10 on a machine of 16 cores)"
    )
    parser.add_argument("--latency", type=float, default=0.2, help="the mocks' latency in seconds")
    parser.add_argument(
        "--mocks",
        type=int,
        default=max(2, min(6, (os.cpu_count() or 2) // 2)),
        help="mock processes on one port",
    )
    parser.add_argument(
        "--postgres-url", default=None, help="a server to use instead of one of the bench's own"
    )
    parser.add_argument("--redis-url", default=None, help="a Redis to use instead of one of the bench's own")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the servers below are stopped on `timeout`

    started_load = load()
    with contextlib.ExitStack() as stack:
        clocks: dict[str, Clock] = {}
        postgres_url = args.postgres_url
        if postgres_url is None:
            own_pg = stack.enter_context(OwnPostgres())
            postgres_url, clocks["postgres"] = own_pg.url, own_pg.cpu_seconds
        redis_url = args.redis_url
        if redis_url is None:
            own_redis = stack.enter_context(OwnRedis())
            redis_url = own_redis.url
            clocks["redis"] = lambda: cpu_seconds(own_redis.pid) if own_redis.pid else 0.0
        mocks = stack.enter_context(mock_pool(args.mocks, args.latency))
        runs = [
            run
            for n in args.workers
            for run in one_deployment(n, args, postgres_url, redis_url, mocks, clocks)
        ]
    for line in table(runs) + statements_table(runs):
        print(line, file=sys.stderr, flush=True)
    print(
        json.dumps(
            {
                "runs": runs,
                "cores": os.cpu_count(),
                "mocks": args.mocks,
                "load_start": started_load,
                "load_end": load(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
