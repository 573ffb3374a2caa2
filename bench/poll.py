"""Dashboards polling: 100 clients each GET the leaderboard and an evaluation's status once a second.

    python -m bench.poll            # 100 clients, 30 s, against `helmbench serve` on the embedded default
    python -m bench.poll --clients 200 --seconds 60 --while-running
    python -m bench.poll --redis-url redis://127.0.0.1:6379/0   # scale-out API: per-key rate kept in Redis

The server is a real `helmbench serve` subprocess (SQLite under a temp var dir, jobs in-process; with --redis-url
jobs go to a `helmbench worker` and each authenticated request's rate check to Redis) with the toy example target.
Each client has its own read-only key (as separate dashboards would), keeps one keep-alive connection, and
revalidates with If-None-Match like a browser. Goal: p99 under 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp
import httpx

from app.config import Settings
from app.store.evaluations import TERMINAL
from bench.ports import free_port, wait_http

HELMBENCH = str(Path(sys.executable).with_name("helmbench"))


def wait_finished(api: httpx.Client, evaluation_id: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while (body := api.get(f"/v1/evaluations/{evaluation_id}").json())["status"] not in TERMINAL:
        if time.monotonic() > deadline:
            raise SystemExit(f"{evaluation_id} did not finish in {timeout}s: {body}")
        time.sleep(0.5)


def note(text: str) -> None:
    print(f"[poll] {text}", file=sys.stderr, flush=True)


def setup(api: httpx.Client, target_url: str, clients: int, while_running: bool) -> tuple[str, list[str]]:
    """A published finished evaluation for the leaderboard; the evaluation to poll; one key per client."""
    target = api.post("/v1/targets", json={"name": "toy", "base_url": target_url, "model": "toy-1"}).json()
    published = api.post("/v1/evaluations", json={"target_id": target["id"], "visibility": "public"}).json()[
        "id"
    ]
    note(f"running {published} (quick suite, public) for the leaderboard")
    wait_finished(api, published)
    polled = published
    note(f"creating {clients} read-only keys")
    keys = [
        api.post("/v1/keys", json={"name": f"dashboard-{i}", "role": "read-only"}).json()["key"]
        for i in range(clients)
    ]
    if while_running:  # poll a full-suite run while it writes items: the embedded default under load
        repeats = running_repeats(api.get("/v1/benchmark").json()["stats"]["items_full"])
        note(f"starting the full suite x {repeats} repeats to poll while it runs")
        started = api.post(
            "/v1/evaluations", json={"target_id": target["id"], "suite": "full", "repeats": repeats}
        )
        started.raise_for_status()
        polled = started.json()["id"]
    return polled, keys


def running_repeats(full_items: int, most: int = 10) -> int:
    """Repeats for the polled run: up to `most` (so it outlasts the polling), within the server's item cap
    (max_matrix_items, default 100,000: the full suite x 10 is over it and would be refused with a 422)."""
    return max(1, min(most, Settings().max_matrix_items // full_items))


async def client(
    base: str,
    key: str,
    evaluation_id: str,
    until: float,
    warm_until: float,
    samples: dict[str, list[float]],
    codes: Counter[str],
) -> None:
    """Poll both endpoints once a second from a random phase, revalidating with the last ETag."""
    etags: dict[str, str] = {}
    paths = {"leaderboard": "/v1/leaderboard", "status": f"/v1/evaluations/{evaluation_id}"}
    connector = aiohttp.TCPConnector(limit=1)
    timeout = aiohttp.ClientTimeout(total=10)
    async with aiohttp.ClientSession(
        base, connector=connector, timeout=timeout, headers={"Authorization": f"Bearer {key}"}
    ) as session:
        await asyncio.sleep(random.random())
        tick = time.monotonic()
        while tick < until:
            for name, path in paths.items():
                headers = {"If-None-Match": etags[name]} if name in etags else {}
                started = time.perf_counter()
                try:
                    async with session.get(path, headers=headers) as response:
                        await response.read()
                        status = response.status
                        if "ETag" in response.headers:
                            etags[name] = response.headers["ETag"]
                except (aiohttp.ClientError, TimeoutError) as exc:
                    codes[f"{name} {type(exc).__name__}"] += 1
                    continue
                elapsed_ms = (time.perf_counter() - started) * 1000
                if time.monotonic() >= warm_until:
                    samples[name].append(elapsed_ms)
                    codes[f"{name} {status}"] += 1
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(statistics.median(values), 2),
        "p90_ms": round(percentile(values, 90), 2),
        "p99_ms": round(percentile(values, 99), 2),
        "max_ms": round(max(values), 2),
    }


async def run_clients(
    base: str, keys: list[str], evaluation_id: str, seconds: float, warmup: float
) -> tuple[dict[str, list[float]], Counter[str]]:
    samples: dict[str, list[float]] = {"leaderboard": [], "status": []}
    codes: Counter[str] = Counter()
    now = time.monotonic()
    await asyncio.gather(
        *(
            client(base, key, evaluation_id, now + warmup + seconds, now + warmup, samples, codes)
            for key in keys
        )
    )
    return samples, codes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--while-running", action="store_true", help="Poll an evaluation that is running.")
    parser.add_argument(
        "--redis-url",
        default="",
        help="Serve in scale-out mode on this Redis (every request's rate check goes there; a worker runs jobs).",
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the servers below are stopped on `timeout`

    var = Path(tempfile.mkdtemp(prefix="helmbench-poll-"))
    api_port, target_port = free_port(), free_port()
    env = {
        **os.environ,
        "HELMBENCH_VAR_DIR": str(var),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8,localhost",
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": args.redis_url,
        "HELMBENCH_QUEUE_NAME": f"helmbench:poll:{var.name}",  # a run of its own on a shared Redis
        "HELMBENCH_LOG_LEVEL": "warning",
        "HELMBENCH_RATE_BURST": "1000",  # setup makes 100 keys at once; each poller stays far below its rate
    }
    target = subprocess.Popen(
        [HELMBENCH, "example-target", "--port", str(target_port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = subprocess.Popen(
        [HELMBENCH, "serve", "--port", str(api_port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{api_port}"
    worker: subprocess.Popen[bytes] | None = None
    try:
        wait_http(f"{base}/readyz")  # ready: the local worker takes jobs
        wait_http(f"http://127.0.0.1:{target_port}/v1/models")
        if args.redis_url:  # after the API has migrated the SQLite file the worker shares
            worker = subprocess.Popen(
                [HELMBENCH, "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        admin = (var / "admin.key").read_text().strip()
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {admin}"}, timeout=30) as api:
            evaluation_id, keys = setup(
                api, f"http://127.0.0.1:{target_port}/v1", args.clients, args.while_running
            )
        note(f"{args.clients} clients polling for {args.seconds:g} s after {args.warmup:g} s of warm-up")
        samples, codes = asyncio.run(run_clients(base, keys, evaluation_id, args.seconds, args.warmup))
        admin_auth = {"Authorization": f"Bearer {admin}"}
        polled = httpx.get(f"{base}/v1/evaluations/{evaluation_id}", headers=admin_auth)
        polled_at_end = {"status": polled.json()["status"], **polled.json()["progress"]}
    finally:
        for proc in (server, target, *([worker] if worker else [])):
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:  # a shard still winding down: the measurement is done anyway
                proc.kill()
                proc.wait()
    everything = samples["leaderboard"] + samples["status"]
    result = {
        "clients": args.clients,
        "seconds": args.seconds,
        "while_running": args.while_running,
        "scale_out_redis": bool(args.redis_url),
        "polled_evaluation_at_end": polled_at_end,
        "leaderboard": summary(samples["leaderboard"]),
        "status": summary(samples["status"]),
        "all": summary(everything),
        "responses": dict(sorted(codes.items())),
        "goal_p99_ms": 20,
        "met": bool(everything) and percentile(everything, 99) < 20,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
