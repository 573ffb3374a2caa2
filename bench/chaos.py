"""Chaos bench: the full suite x3 through the API on Redis + PostgreSQL with two workers, first without faults,
then through 20 worker SIGKILLs, a Redis restart that loses all its data and a 10 s PostgreSQL outage, together.

    python -m bench.chaos                          # full suite x3 (17,208 items), lease 15 s, 20 kills
    python -m bench.chaos --suite quick --kills 4  # a short look
    python -m bench.chaos --suite full --repeats 1 --kills 4 --no-redis-restart --outage 0  # the kills alone

Everything runs on this machine: `helmbench serve` and two `helmbench worker` processes reach PostgreSQL through a
cuttable proxy (bench/tcp_proxy.py) on a database of their own, and a `redis-server` of their own without
persistence (bench/redis_server.py), so restarting it loses every queued job. The target is the mock
(bench/mock_target.py). A kill fires once the run has stored its share of the items, on a worker that has taken a
shard while the other has too (so the run always has one worker working, as under a rolling kill); its
replacement starts at once. Prints the fault-free and chaos times, the bound (fault-free + 2 x lease + 60 s),
what the database holds, the target calls made and the most in flight at once (the cap must hold), the 503s the
API gave while the database was away, and per kill: when the dead worker's target slots were free again, when
its replacement took its first slot and shard, when the dead worker's shards started again elsewhere, and the
items/s over the next lease; then one JSON line.
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
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
import redis
from redis import Redis

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
    started_at: float = field(default_factory=time.time)

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
    mock_url: str
    redis_client: redis.Redis = field(default_factory=redis.Redis)
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

    def slot_holders(self) -> dict[int, int]:
        """Target slots held now, by process id (tokens are host:pid:nonce/nonce); {} if Redis is away."""
        key = f"helmbench:queue:limits:{self.target_id}:slots"
        try:
            tokens = self.redis_client.zrangebyscore(key, f"({self.redis_client.time()[0] * 1000}", "+inf")
        except redis.RedisError:
            return {}
        holders: dict[int, int] = {}
        for token in tokens:
            pid = int(token.decode().split("/")[0].split(":")[-2])
            holders[pid] = holders.get(pid, 0) + 1
        return holders

    def live(self) -> list[Worker]:
        return [w for w in self.workers if w.proc.poll() is None]

    def try_kill(self) -> Kill | None:
        """SIGKILL the oldest worker if it and another are working; start its replacement. None if not yet."""
        live = self.live()
        if len(live) < 2 or not all(w.ready() for w in live):
            return None
        victim = live[0]
        os.kill(victim.proc.pid, signal.SIGKILL)
        killed_at = time.time()
        victim.proc.wait(10)
        self.start_worker()
        return Kill(at=killed_at, victim=victim, replacement=self.workers[-1])

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
class Kill:
    """One SIGKILL and what it cost, filled in from samples of Redis and, at the end, the workers' logs."""

    at: float
    victim: Worker
    replacement: Worker
    slots_at_kill: int = -1
    slots_back_s: float | None = None  # until the victim's last target slot lapsed
    first_slot_s: float | None = None  # until the replacement held its first target slot
    ready_s: float | None = None  # until the replacement started its first shard
    shards: int = 0  # the victim's shards that were running
    reclaimed_s: list[float] = field(default_factory=list)  # until each was started again elsewhere

    def observe(self, holders: dict[int, int], now: float) -> None:
        held = holders.get(self.victim.proc.pid, 0)
        if self.slots_at_kill < 0:
            self.slots_at_kill = held
        if self.slots_back_s is None and held == 0:
            self.slots_back_s = now - self.at
        if self.first_slot_s is None and holders.get(self.replacement.proc.pid, 0):
            self.first_slot_s = now - self.at


@dataclass
class Faults:
    kills_at: list[float]
    redis_at: float | None
    database_at: float | None
    outage_s: float
    progress: list[tuple[float, int]] = field(default_factory=list)  # (time, items done) per poll
    slots: list[tuple[float, dict[int, int]]] = field(default_factory=list)  # target slots by pid per poll
    kills: int = 0
    killed: list[Kill] = field(default_factory=list)
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
            if faults is not None:
                faults.progress.append((time.time(), last["progress"]["done"]))
            if last["status"] in SETTLED:
                return last
        elif response is not None and response.status_code == 503 and faults is not None:
            problem = response.headers.get("content-type", "").startswith("application/problem+json")
            faults.unavailable += bool(problem and response.headers.get("retry-after"))
        if faults is not None and last:
            share = last["progress"]["done"] / max(1, last["progress"]["total"])
            if faults.kills < len(faults.kills_at) and share >= faults.kills_at[faults.kills]:
                kill = dep.try_kill()
                if kill is not None:
                    faults.kills += 1
                    faults.killed.append(kill)
            holders = dep.slot_holders()
            faults.slots.append((time.time(), holders))
            for kill in faults.killed:
                kill.observe(holders, time.time())
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


def _shard_events(worker: Worker) -> list[tuple[float, str, tuple[str, int]]]:
    """(time, event, (evaluation, shard)) of every shard event in a worker's log."""
    events = []
    for line in worker.log.read_text(errors="replace").splitlines():
        if not line.startswith("{") or '"shard' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if "shard" in entry and "evaluation_id" in entry:
            at = datetime.fromisoformat(entry["timestamp"]).timestamp()
            events.append((at, entry["event"], (entry["evaluation_id"], entry["shard"])))
    return events


def _account_kills(dep: Deployment, faults: Faults) -> None:
    """From the logs: when each replacement took its first shard, and when the victim's shards ran again."""
    events = {id(w): _shard_events(w) for w in dep.workers}
    for kill in faults.killed:
        mine = events[id(kill.replacement)]
        kill.ready_s = next((at - kill.at for at, event, _ in mine if event == "shard started"), None)
        running: set[tuple[str, int]] = set()
        for _at, event, shard in events[id(kill.victim)]:
            if event == "shard started":
                running.add(shard)
            elif event.startswith("shard "):
                running.discard(shard)
        kill.shards = len(running)
        for shard in running:
            again = [
                at
                for w in dep.workers
                if w is not kill.victim
                for at, event, s in events[id(w)]
                if s == shard and event == "shard started" and at > kill.at
            ]
            if again:
                kill.reclaimed_s.append(min(again) - kill.at)


def _rate(progress: list[tuple[float, int]], start: float, seconds: float) -> float:
    """Items per second written in [start, start + seconds]."""
    inside = [(at, done) for at, done in progress if start <= at <= start + seconds]
    if len(inside) < 2:
        return 0.0
    return (inside[-1][1] - inside[0][1]) / max(1e-9, inside[-1][0] - inside[0][0])


def _report_kills(faults: Faults, lease: float, clean_rate: float) -> list[dict[str, Any]]:
    rows = []
    print(
        f"per kill (s after the SIGKILL; fault-free rate {clean_rate:.0f} items/s): victim's slots held -> "
        "all lapsed | replacement's first slot | its first shard | victim's running shards re-started | "
        f"items/s over the next {lease:g} s"
    )
    for n, kill in enumerate(faults.killed, 1):
        row = {
            "slots_at_kill": kill.slots_at_kill,
            "slots_back_s": kill.slots_back_s,
            "first_slot_s": kill.first_slot_s,
            "ready_s": kill.ready_s,
            "shards": kill.shards,
            "reclaimed_s": sorted(round(x, 1) for x in kill.reclaimed_s),
            "rate": round(_rate(faults.progress, kill.at, lease)),
        }
        rows.append(row)

        def fmt(x: float | None) -> str:
            return "-" if x is None else f"{x:.1f}"

        print(
            f"  kill {n:2d}: slots {row['slots_at_kill']:3d} -> {fmt(kill.slots_back_s):>5} | "
            f"{fmt(kill.first_slot_s):>5} | {fmt(kill.ready_s):>5} | {kill.shards} shards: "
            f"{row['reclaimed_s']} | {row['rate']} items/s"
        )
    return rows


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


def _as_installed(environ: Mapping[str, str], cache: Path) -> dict[str, str]:
    """The environment with a bytecode cache, as the image has (pip compiles what it installs).

    Why: a development venv installed by uv holds no bytecode and PYTHONDONTWRITEBYTECODE keeps it that way, so
    every process would compile all it imports afresh, ~1.7 s of CPU per worker start that a deployed worker
    never pays. Here the first process to import a module writes its bytecode under `cache`, as for both runs.
    """
    env = {k: v for k, v in environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def run_once(dep: Deployment, args: argparse.Namespace, faults: Faults | None) -> dict[str, Any]:
    body = {"target_id": dep.target_id, "suite": args.suite, "repeats": args.repeats}
    httpx.post(f"{dep.mock_url}/stats/reset").raise_for_status()
    started = time.monotonic()
    accepted = dep.api.post("/v1/evaluations", json=body)
    accepted.raise_for_status()
    evaluation_id = accepted.json()["id"]
    final = _poll(dep, evaluation_id, faults)
    seconds = round(time.monotonic() - started, 1)
    served = httpx.get(f"{dep.mock_url}/stats").json()
    return {
        "evaluation_id": evaluation_id,
        "status": final["status"],
        "total": final["progress"]["total"],
        "seconds": seconds,
        "error": final.get("error"),
        "target_calls": served.get("requests", 0),
        "max_in_flight": served.get("max_in_flight", 0),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.chaos")
    p.add_argument("--suite", default="full")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--kills", type=int, default=20)
    p.add_argument(
        "--timeline", type=Path, help="write the chaos run's samples here (JSON) for a closer look"
    )
    p.add_argument("--outage", type=float, default=10.0, help="seconds PostgreSQL is unreachable (0: none)")
    p.add_argument(
        "--no-redis-restart", action="store_true", help="leave Redis alone (to look at kills alone)"
    )
    p.add_argument(
        "--fault-free-s",
        type=float,
        default=None,
        help="skip the fault-free run and take its time from here (for quick looks; the bound needs the run)",
    )
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
                **_as_installed(os.environ, tmp / "pycache"),
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
            dep = Deployment(
                env,
                tmp,
                redis,
                proxy,
                httpx.Client(base_url=base, timeout=15),
                mock_url,
                redis_client=Redis.from_url(redis.url),
            )
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

            if args.fault_free_s is None:
                clean = run_once(dep, args, None)
                clean.update(_stored(postgres_url, clean["evaluation_id"]))
                print(f"fault-free: {json.dumps(clean)}", flush=True)
            else:
                clean = {"seconds": args.fault_free_s, "given": True}

            step = 0.72 / max(1, args.kills - 1)
            faults = Faults(
                kills_at=[0.03 + i * step for i in range(args.kills)],
                redis_at=None if args.no_redis_restart else 0.3,
                database_at=0.55 if args.outage > 0 else None,
                outage_s=args.outage,
            )
            chaos = run_once(dep, args, faults)
            chaos.update(_stored(postgres_url, chaos["evaluation_id"]))
            _account_kills(dep, faults)
            per_kill = _report_kills(faults, args.lease, chaos["total"] / clean["seconds"])
            if args.timeline:
                args.timeline.write_text(
                    json.dumps(
                        {
                            "progress": faults.progress,
                            "slots": faults.slots,
                            "kills": [
                                {
                                    "at": k.at,
                                    "victim": k.victim.proc.pid,
                                    "replacement": k.replacement.proc.pid,
                                }
                                for k in faults.killed
                            ],
                            "workers": [{"pid": w.proc.pid, "started_at": w.started_at} for w in dep.workers],
                        }
                    )
                )
            bound = clean["seconds"] + 2 * args.lease + 60
            ok = (
                chaos["status"] == "succeeded"
                and chaos["rows"] == chaos["distinct_keys"] == chaos["total"]
                and chaos["max_in_flight"] <= args.concurrency
                and chaos["seconds"] <= bound
            )
            print(
                f"chaos: {json.dumps(chaos)}\n"
                f"faults: {faults.kills} worker SIGKILLs, {faults.redis_restarts} Redis restart(s) losing all data, "
                f"{faults.outages} database outage(s) of {args.outage:g} s; the API answered {faults.unavailable} "
                f"polls with 503 problem+json + Retry-After (database or Redis away)\n"
                f"/readyz during the outage: {faults.readyz_during_outage}\n"
                f"target calls: {chaos['target_calls']} through the faults, "
                f"{clean.get('target_calls', '?')} fault-free; most in flight at once "
                f"{chaos['max_in_flight']} (cap {args.concurrency})\n"
                f"time: fault-free {clean['seconds']:.1f} s, chaos {chaos['seconds']:.1f} s, bound {bound:.1f} s "
                f"(fault-free + 2 x {args.lease:g} s lease + 60 s): {'MET' if ok else 'NOT MET'}; "
                f"load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
                flush=True,
            )
            print(
                json.dumps(
                    {
                        "fault_free": clean,
                        "chaos": chaos,
                        "kills": faults.kills,
                        "per_kill": per_kill,
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
