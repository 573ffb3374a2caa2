"""Chaos bench: the full suite x3 through the API on Redis + PostgreSQL with two workers, first without faults,
then through 20 worker SIGKILLs, a Redis restart that loses all its data and a 10 s PostgreSQL outage, together.

    python -m bench.chaos                          # full suite x3 (17,208 items), lease 15 s, 20 kills
    python -m bench.chaos --suite quick --kills 4  # a short look

Everything runs on this machine: `helmbench serve` and two `helmbench worker` processes reach PostgreSQL through a
cuttable proxy (bench/tcp_proxy.py) on a database of their own, and a `redis-server` of their own without
persistence (bench/redis_server.py), so restarting it loses every queued job. The target is the mock
(bench/mock_target.py). A kill fires once the run has stored its share of the items, on a worker that has taken a
shard while the other has too (so the run always has one worker working, as under a rolling kill); its
replacement starts at once. Prints the fault-free and chaos times, the bound (fault-free + 2 x lease + 60 s),
what the database holds, and the 503s the API gave while the database was away; then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg

from bench.mockproc import mock_process
from bench.ports import free_port, wait_http
from bench.redis_server import OwnRedis
from bench.tcp_proxy import CuttablePostgres

HELMBENCH = str(Path(sys.executable).with_name("helmbench"))
SETTLED = ("succeeded", "failed", "cancelled")
SECRET_KEY = "IDfcpEK6XcFmnkHnuF_eK6t38mvjj7kbUwKxKiPEw-o="


@dataclass
class Worker:
    proc: subprocess.Popen[bytes]
    log: Path

    def ready(self) -> bool:
        """It has taken a shard since it started (its log says so)."""
        return self.proc.poll() is None and self.log.exists() and b'"shard started"' in self.log.read_bytes()


@dataclass
class Deployment:
    env: dict[str, str]
    tmp: Path
    redis: OwnRedis
    proxy: CuttablePostgres
    api: httpx.Client
    target_id: str = ""
    workers: list[Worker] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        with (self.tmp / f"{name}.log").open("ab") as out:
            proc = subprocess.Popen(args, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def start_worker(self) -> None:
        name = f"worker{len(self.workers) + 1}"
        self.workers.append(Worker(self.start([HELMBENCH, "worker"], name), self.tmp / f"{name}.log"))

    def live(self) -> list[Worker]:
        return [w for w in self.workers if w.proc.poll() is None]

    def try_kill(self) -> bool:
        """SIGKILL the oldest worker if it and another are working; start its replacement. False if not yet."""
        live = self.live()
        if len(live) < 2 or not all(w.ready() for w in live):
            return False
        os.kill(live[0].proc.pid, signal.SIGKILL)
        live[0].proc.wait(10)
        self.start_worker()
        return True

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


@dataclass
class Faults:
    kills_at: list[float]
    redis_at: float | None
    database_at: float | None
    outage_s: float
    kills: int = 0
    redis_restarts: int = 0
    outages: int = 0
    unavailable: int = 0  # 503 problem+json with Retry-After from the API while the database was away
    readyz_during_outage: str = ""


def _poll(dep: Deployment, evaluation_id: str, faults: Faults | None) -> dict[str, Any]:
    """Watch the evaluation through the API until it settles, firing each fault at its share of the items."""
    outage_ends: float | None = None
    last: dict[str, Any] = {}
    while True:
        try:
            response = dep.api.get(f"/v1/evaluations/{evaluation_id}")
        except httpx.HTTPError:
            response = None
        if response is not None and response.status_code == 200:
            last = response.json()
            if last["status"] in SETTLED:
                return last
        elif response is not None and response.status_code == 503 and faults is not None:
            problem = response.headers.get("content-type", "").startswith("application/problem+json")
            faults.unavailable += bool(problem and response.headers.get("retry-after"))
        if faults is not None and last:
            share = last["progress"]["done"] / max(1, last["progress"]["total"])
            if (
                faults.kills < len(faults.kills_at)
                and share >= faults.kills_at[faults.kills]
                and dep.try_kill()
            ):
                faults.kills += 1
            if faults.redis_at is not None and not faults.redis_restarts and share >= faults.redis_at:
                dep.redis.restart_empty()
                faults.redis_restarts += 1
            if faults.database_at is not None and not faults.outages and share >= faults.database_at:
                dep.proxy.cut()
                faults.outages += 1
                outage_ends = time.monotonic() + faults.outage_s
                try:
                    readyz = dep.api.get("/readyz")
                    faults.readyz_during_outage = f"{readyz.status_code} {readyz.json().get('detail', '')}"[
                        :200
                    ]
                except (httpx.HTTPError, ValueError) as exc:
                    faults.readyz_during_outage = f"no answer: {type(exc).__name__}"
        if outage_ends is not None and time.monotonic() >= outage_ends:
            dep.proxy.restore()
            outage_ends = None
        time.sleep(0.25)


def _readyz(api: httpx.Client) -> str:
    """What /readyz says (a kept-alive connection the server closed meanwhile is tried once more)."""
    for _ in range(2):
        try:
            readyz = api.get("/readyz")
            return f"{readyz.status_code} {readyz.json().get('detail', '')}"[:200]
        except (httpx.HTTPError, ValueError) as exc:
            failure = f"no answer: {type(exc).__name__}"
    return failure


def _stored(postgres_url: str, evaluation_id: str) -> dict[str, int]:
    with psycopg.connect(postgres_url) as conn:
        rows, keys, answered = conn.execute(
            "SELECT count(*), count(DISTINCT key), count(*) FILTER (WHERE error_class IS NULL) "
            "FROM evaluation_item WHERE evaluation_id = %s",
            (evaluation_id,),
        ).fetchone()
    return {"rows": rows, "distinct_keys": keys, "answered": answered}


def run_once(dep: Deployment, args: argparse.Namespace, faults: Faults | None) -> dict[str, Any]:
    body = {"target_id": dep.target_id, "suite": args.suite, "repeats": args.repeats}
    started = time.monotonic()
    accepted = dep.api.post("/v1/evaluations", json=body)
    accepted.raise_for_status()
    evaluation_id = accepted.json()["id"]
    final = _poll(dep, evaluation_id, faults)
    return {
        "evaluation_id": evaluation_id,
        "status": final["status"],
        "total": final["progress"]["total"],
        "seconds": round(time.monotonic() - started, 1),
        "error": final.get("error"),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.chaos")
    p.add_argument("--suite", default="full")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--outage", type=float, default=10.0, help="seconds PostgreSQL is unreachable")
    p.add_argument("--lease", type=float, default=15.0, help="HELMBENCH_SHARD_LEASE_S")
    p.add_argument("--latency", type=float, default=0.2, help="the mock target's latency (s)")
    p.add_argument("--concurrency", type=int, default=64, help="the target's max_concurrency")
    p.add_argument(
        "--postgres-url",
        default=os.environ.get("HELMBENCH_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    args = p.parse_args(argv)
    load = os.getloadavg()
    print(
        f"chaos bench: suite {args.suite} x{args.repeats}, lease {args.lease:g} s, {args.kills} kills, "
        f"{args.outage:g} s database outage, one Redis restart; {os.cpu_count()} cores, load {load[0]:.1f}",
        flush=True,
    )
    name = f"helmbench_chaos_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    postgres_url = f"{args.postgres_url.rpartition('/')[0]}/{name}"
    tmp = Path(tempfile.mkdtemp(prefix="helmbench-chaos-"))
    dep: Deployment | None = None
    try:
        with OwnRedis(tmp / "redis") as redis, mock_process(latency=args.latency) as mock_url:
            proxy = CuttablePostgres(postgres_url)
            env = {
                **os.environ,
                "HELMBENCH_VAR_DIR": str(tmp / "var"),
                "HELMBENCH_DATABASE_URL": proxy.url,
                "HELMBENCH_REDIS_URL": redis.url,
                "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8",
                "HELMBENCH_SECRET_KEYS": SECRET_KEY,
                "HELMBENCH_SHARD_LEASE_S": str(args.lease),
                "HELMBENCH_LOG_LEVEL": "info",
            }
            subprocess.run([HELMBENCH, "db", "upgrade"], env=env, check=True, capture_output=True)
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            dep = Deployment(env, tmp, redis, proxy, httpx.Client(base_url=base, timeout=15))
            dep.start([HELMBENCH, "serve", "--port", str(port)], "api")
            wait_http(f"{base}/healthz")
            dep.api.headers["Authorization"] = f"Bearer {(tmp / 'var' / 'admin.key').read_text().strip()}"
            target = dep.api.post(
                "/v1/targets",
                json={
                    "name": "mock",
                    "base_url": mock_url + "/v1",
                    "model": "mock-model",
                    "max_concurrency": args.concurrency,
                },
            )
            target.raise_for_status()
            dep.target_id = target.json()["id"]
            dep.start_worker()
            dep.start_worker()

            clean = run_once(dep, args, None)
            clean.update(_stored(postgres_url, clean["evaluation_id"]))
            print(f"fault-free: {json.dumps(clean)}", flush=True)

            step = 0.72 / max(1, args.kills - 1)
            faults = Faults(
                kills_at=[0.03 + i * step for i in range(args.kills)],
                redis_at=0.3,
                database_at=0.55,
                outage_s=args.outage,
            )
            chaos = run_once(dep, args, faults)
            chaos.update(_stored(postgres_url, chaos["evaluation_id"]))
            bound = clean["seconds"] + 2 * args.lease + 60
            ok = (
                chaos["status"] == "succeeded"
                and chaos["rows"] == chaos["distinct_keys"] == chaos["total"]
                and chaos["seconds"] <= bound
            )
            print(
                f"chaos: {json.dumps(chaos)}\n"
                f"faults: {faults.kills} worker SIGKILLs, {faults.redis_restarts} Redis restart(s) losing all data, "
                f"{faults.outages} database outage(s) of {args.outage:g} s; the API answered {faults.unavailable} "
                f"polls with 503 problem+json + Retry-After (database or Redis away)\n"
                f"/readyz during the outage: {faults.readyz_during_outage}\n"
                f"time: fault-free {clean['seconds']:.1f} s, chaos {chaos['seconds']:.1f} s, bound {bound:.1f} s "
                f"(fault-free + 2 x {args.lease:g} s lease + 60 s): {'MET' if ok else 'NOT MET'}",
                flush=True,
            )
            print(
                json.dumps(
                    {
                        "fault_free": clean,
                        "chaos": chaos,
                        "kills": faults.kills,
                        "redis_restarts": faults.redis_restarts,
                        "outages": faults.outages,
                        "api_503s": faults.unavailable,
                        "bound_s": bound,
                        "met": ok,
                    }
                ),
                flush=True,
            )
    finally:
        if dep is not None:
            dep.stop()
            dep.proxy.close()
        with psycopg.connect(args.postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"logs: {tmp}", flush=True)


if __name__ == "__main__":
    main()
