"""What a user runs: the real library's full suite through the API with real grading, against the 200 ms mock.

    python -m bench.api_e2e                          # C=64 and C=256, then C=64 under 100 public pollers
    python -m bench.api_e2e --concurrency 64 --pollers 0 --mock-url http://127.0.0.1:PORT

Only the API is used: `helmbench serve` on the embedded default (SQLite under a temp var dir), a target with
`max_concurrency = C` registered with POST /v1/targets, an evaluation of suite `full` started with POST
/v1/evaluations and followed with GET /v1/evaluations/{id} until it settles. Whether the server runs shards in its
own process or hands them to a local worker is its business: the figures are what a user gets either way.

Calls per second are the mock's own count of chat requests (GET /stats) over the time from POST to the settled
status; ideal is C / 200 ms. With --pollers N, N public clients each GET the leaderboard and the catalogue once a
second (no key, revalidating with If-None-Match as a dashboard does) for as long as the run goes: p50/p99/max of
their requests, and the run's calls/s beside the run without pollers.

Prints one JSON line per run and one at the end with every run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from app.store.evaluations import TERMINAL
from bench.board import cpu_seconds
from bench.mockproc import mock_process
from bench.poll import HELMBENCH, summary
from bench.ports import free_port, wait_http

LATENCY = 0.2
POLLED = ("/v1/leaderboard", "/v1/benchmark")


def note(text: str) -> None:
    print(f"[api_e2e] {text}", file=sys.stderr, flush=True)


@contextmanager
def serve(var: Path) -> Iterator[tuple[str, int]]:
    """`helmbench serve` on a fresh embedded store; yields its base URL and pid, stops it (and what it started)
    after."""
    port = free_port()
    env = {
        **os.environ,
        "HELMBENCH_VAR_DIR": str(var),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8,localhost",
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
        "HELMBENCH_LOG_LEVEL": "warning",
        "HELMBENCH_RATE_PER_MINUTE": "0",  # the bench's own status polls are not what is measured
    }
    log = (var / "serve.log").open("wb")
    server = subprocess.Popen(
        [HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: a local worker it starts is stopped with it
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/healthz", timeout=180)
        yield base, server.pid
    finally:
        server.send_signal(signal.SIGINT)  # as Ctrl-C: the server stops what it started
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def server_cpu_s(pid: int) -> tuple[float, float]:
    """CPU seconds used so far by the API process and by its children (the local workers): what calls cost,
    readable on a loaded machine where wall-clock rates say more about the neighbours."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    kids = [int(k) for k in path.read_text().split()] if path.exists() else []
    workers = 0.0
    for kid in kids:
        with suppress(FileNotFoundError):
            workers += cpu_seconds(kid)
    return cpu_seconds(pid), workers


def mock_calls(mock: str) -> int:
    return int(httpx.get(f"{mock}/stats", timeout=10).json().get("requests", 0))


def run_full_suite(api: httpx.Client, mock: str, concurrency: int, pid: int) -> dict[str, Any]:
    """One full-suite evaluation at this concurrency, from POST to its settled status; `pid`: the server's."""
    target = api.post(
        "/v1/targets",
        json={
            "name": f"mock C={concurrency}",
            "base_url": f"{mock}/v1",
            "model": "mock-model",
            "max_concurrency": concurrency,
        },
    )
    target.raise_for_status()
    calls_before = mock_calls(mock)
    cpu_before = server_cpu_s(pid)
    started = time.perf_counter()
    created = api.post("/v1/evaluations", json={"target_id": target.json()["id"], "suite": "full"})
    created.raise_for_status()
    evaluation_id = created.json()["id"]
    while (body := api.get(f"/v1/evaluations/{evaluation_id}").json())["status"] not in TERMINAL:
        if time.perf_counter() - started > 1800:
            raise SystemExit(f"{evaluation_id} did not settle in 30 min: {body}")
        time.sleep(0.25)
    seconds = time.perf_counter() - started
    calls = mock_calls(mock) - calls_before
    api_cpu, workers_cpu = (
        after - before for after, before in zip(server_cpu_s(pid), cpu_before, strict=True)
    )
    ideal = concurrency / LATENCY
    return {
        "concurrency": concurrency,
        "status": body["status"],
        "items": body["progress"]["total"],
        "done": body["progress"]["done"],
        "items_failed": body["progress"]["failed"],
        "calls": calls,
        "seconds": round(seconds, 2),
        "calls_per_s": round(calls / seconds, 1),
        "items_per_s": round(body["progress"]["total"] / seconds, 1),
        "ideal_calls_per_s": ideal,
        "pct_ideal": round(100 * calls / seconds / ideal, 1),
        "api_cpu_ms_per_call": round(1000 * api_cpu / calls, 3) if calls else None,
        "workers_cpu_ms_per_call": round(1000 * workers_cpu / calls, 3) if calls else None,
    }


async def poller(
    base: str, number: int, stop: asyncio.Event, samples: dict[str, list[float]], codes: Counter[str]
) -> None:
    """Once a second from a random phase: the leaderboard and the catalogue, revalidating with their ETags."""
    etags: dict[str, str] = {}
    rng = random.Random(number)
    async with aiohttp.ClientSession(
        base, connector=aiohttp.TCPConnector(limit=1), timeout=aiohttp.ClientTimeout(total=30)
    ) as http:
        await asyncio.sleep(rng.random())
        tick = time.monotonic()
        while not stop.is_set():
            for path in POLLED:
                headers = {"If-None-Match": etags[path]} if path in etags else {}
                started = time.perf_counter()
                try:
                    async with http.get(path, headers=headers) as response:
                        await response.read()
                        if "ETag" in response.headers:
                            etags[path] = response.headers["ETag"]
                        codes[f"{path} {response.status}"] += 1
                except (aiohttp.ClientError, TimeoutError) as exc:
                    codes[f"{path} {type(exc).__name__}"] += 1
                    continue
                samples[path].append((time.perf_counter() - started) * 1000)
            tick += 1.0
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, tick - time.monotonic()))


async def run_with_pollers(
    base: str, pid: int, api: httpx.Client, mock: str, concurrency: int, pollers: int
) -> dict[str, Any]:
    """The full suite at this concurrency while `pollers` public clients poll; their latencies and the run's."""
    samples: dict[str, list[float]] = {p: [] for p in POLLED}
    codes: Counter[str] = Counter()
    stop = asyncio.Event()
    clients = [asyncio.create_task(poller(base, n, stop, samples, codes)) for n in range(pollers)]
    await asyncio.sleep(2.0)  # every poller has started and holds its connection
    try:
        run = await asyncio.to_thread(run_full_suite, api, mock, concurrency, pid)
    finally:
        stop.set()
        await asyncio.gather(*clients)
    everything = [x for p in POLLED for x in samples[p]]
    failures = {k: v for k, v in codes.items() if not k.endswith((" 200", " 304"))}
    return {
        **run,
        "pollers": pollers,
        "poll_all": summary(everything),
        **{f"poll {p}": summary(samples[p]) for p in POLLED},
        "poll_failures": failures,
    }


def inspect_same_mock(mock: str, items: int, concurrency: int) -> dict[str, Any]:
    """inspect-ai on the same mock with as many calls as our run made (bench/inspect_compare.py, own process)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.inspect_compare",
            "--mock-url",
            mock,
            "--items",
            str(items),
            "--concurrency",
            str(concurrency),
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {"failed": proc.stderr.strip()[-500:]}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.api_e2e", description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--pollers", type=int, default=100, help="0: no run under pollers")
    parser.add_argument("--poll-concurrency", type=int, default=64)
    parser.add_argument("--skip-inspect", action="store_true")
    parser.add_argument("--mock-url", default=None, help="a running mock instead of starting one")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the servers below are stopped on `timeout`

    results: dict[str, Any] = {"load_start": load(), "cores": os.cpu_count()}
    var = Path(tempfile.mkdtemp(prefix="helmbench-api-e2e-"))
    with mock_at(args.mock_url) as mock, serve(var) as (base, pid):
        admin = (var / "admin.key").read_text().strip()
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {admin}"}, timeout=60) as api:
            for c in args.concurrency:
                note(f"full suite through the API at C={c} (load {load()[0]})")
                r = results[f"helmbench C={c}"] = {**run_full_suite(api, mock, c, pid), "load": load()}
                print(json.dumps({"run": f"helmbench C={c}", **r}), flush=True)
                if not args.skip_inspect:
                    note(f"inspect-ai on the same mock, {r['calls']} calls at C={c}")
                    i = results[f"inspect C={c}"] = {**inspect_same_mock(mock, r["calls"], c), "load": load()}
                    print(json.dumps({"run": f"inspect C={c}", **i}), flush=True)
            if args.pollers:
                c = args.poll_concurrency
                quiet = results.get(f"helmbench C={c}")
                if quiet is None:
                    quiet = results[f"helmbench C={c}"] = {
                        **run_full_suite(api, mock, c, pid),
                        "load": load(),
                    }
                note(f"full suite at C={c} under {args.pollers} public pollers (load {load()[0]})")
                polled = asyncio.run(run_with_pollers(base, pid, api, mock, c, args.pollers))
                polled["load"] = load()
                polled["calls_per_s_vs_quiet"] = round(polled["calls_per_s"] / quiet["calls_per_s"], 3)
                results[f"helmbench C={c} + {args.pollers} pollers"] = polled
                print(json.dumps({"run": f"helmbench C={c} + pollers", **polled}), flush=True)
    shutil.rmtree(var, ignore_errors=True)
    results["load_end"] = load()
    print(json.dumps(results), flush=True)


@contextmanager
def mock_at(url: str | None) -> Iterator[str]:
    """The mock at url, or one started in its own process for this run."""
    if url:
        yield url
    else:
        with mock_process(latency=LATENCY) as started:
            yield started


if __name__ == "__main__":
    main()
