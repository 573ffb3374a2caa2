"""What a user runs: the real library's full suite through the API with real grading, against the 200 ms mock.

    python -m bench.api_e2e                          # C=64 and C=256, then C=64 under 100 public pollers
    python -m bench.api_e2e --concurrency 64 --pollers 0 --mock-url http://127.0.0.1:PORT
    python -m bench.api_e2e --concurrency 256 --pollers 0 --skip-inspect --workers 1 2 \
        --redis-url redis://127.0.0.1:6379/10 --postgres-url postgresql://postgres@127.0.0.1:5432/test

Only the API is used: `helmbench serve` on the embedded default (SQLite under a temp var dir), a target with
`max_concurrency = C` registered with POST /v1/targets, an evaluation of suite `full` started with POST
/v1/evaluations and followed with GET /v1/evaluations/{id} until it settles. Whether the server runs shards in its
own process or hands them to a local worker is its business: the figures are what a user gets either way.

With --workers N [N ...], the scale-out deployment instead, once per N: `helmbench serve` (no local worker) and N
`helmbench worker` processes on Redis (--redis-url, else a redis-server of the run's own; a queue name of the
run's own) and a fresh PostgreSQL database (created on --postgres-url's server, dropped after), timed once every
worker has logged that it takes jobs. At the end, each N's calls/s over the first N's.

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
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from app.store.evaluations import TERMINAL
from bench import deployment
from bench.board import cpu_seconds
from bench.mockproc import mock_process
from bench.poll import HELMBENCH, summary
from bench.ports import free_port, wait_http
from tests.grading.grades.likert.speed import reference_unit

LATENCY = 0.2
POLLED = ("/v1/leaderboard", "/v1/benchmark")
# What the bench needs of a server besides its deployment: the loopback mock admitted, and its own status polls
# not what is measured.
BENCH_SETTINGS = {"HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8,localhost", "HELMBENCH_RATE_PER_MINUTE": "0"}
CpuClock = Callable[[], tuple[float, float]]


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
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
        "HELMBENCH_LOG_LEVEL": "warning",
        **BENCH_SETTINGS,
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
        wait_http(
            f"{base}/readyz", timeout=180
        )  # ready: its local worker takes jobs, so a run starts at once
        yield base, server.pid
    finally:
        server.send_signal(signal.SIGINT)  # as Ctrl-C: the server stops what it started
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def server_cpu_s(pid: int, workers: Sequence[int] = ()) -> tuple[float, float]:
    """CPU seconds used so far by the API process and by the workers (its children, the local workers, and
    `workers`): what calls cost, readable on a loaded machine where wall-clock rates say more about the
    neighbours."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    kids = [int(k) for k in path.read_text().split()] if path.exists() else []
    used = 0.0
    for kid in [*kids, *workers]:
        with suppress(FileNotFoundError):
            used += cpu_seconds(kid)
    return cpu_seconds(pid), used


def mock_stats(mock: str) -> dict[str, float]:
    return httpx.get(f"{mock}/stats", timeout=10).json()


WRITE_EVERY_S = 0.5  # a target changed through the API while the run goes: SQLite has one write lock
POLL_S = 0.05  # the bench's status poll: its period is the resolution of "POST to settled" (a status document
# is kept for 0.5 s while a run goes, so most of these polls are answered from memory)


def timeline(
    stats: dict[str, float], posted_at: float, settled_at: float, concurrency: int
) -> dict[str, Any]:
    """Where a run's time went, from the mock's side: POST to the first call, the calls (and how many slots of
    `concurrency` they kept busy on average), the last answer to the settled status (the report)."""
    first, last = stats.get("first_request_at", 0.0), stats.get("last_answer_at", 0.0)
    if not first or not last or last <= first:
        return {}
    return {
        "post_to_first_call_s": round(first - posted_at, 2),
        "calls_s": round(last - first, 2),
        "mean_in_flight": round(stats.get("in_flight_seconds", 0.0) / (last - first), 1),
        "slots_busy_pct": round(100 * stats.get("in_flight_seconds", 0.0) / (last - first) / concurrency, 1),
        "last_answer_to_settled_s": round(settled_at - last, 2),
        "slot_gap_ms": stats.get("gap_ms", {}),
    }


class MockCounts:
    """The counts of the mock processes behind one URL: one process (its /stats), or several sharing a port,
    each also reachable on a port of its own (bench/scale_out.py), whose counts add up."""

    def __init__(self, url: str, own_urls: Sequence[str] = ()) -> None:
        self.url = url
        self.own_urls = list(own_urls) or [url]

    def reset(self) -> None:
        for url in self.own_urls:
            httpx.post(f"{url}/stats/reset", timeout=10).raise_for_status()

    def stats(self) -> dict[str, Any]:
        each = [mock_stats(url) for url in self.own_urls]
        if len(each) == 1:
            return each[0]
        summed: dict[str, Any] = {}
        for stats in each:
            for name, value in stats.items():
                if isinstance(value, int | float):
                    summed[name] = summed.get(name, 0) + value
        firsts = [s["first_request_at"] for s in each if s.get("first_request_at")]
        lasts = [s["last_answer_at"] for s in each if s.get("last_answer_at")]
        summed["first_request_at"] = min(firsts, default=0.0)
        summed["last_answer_at"] = max(lasts, default=0.0)
        # each process's own peak, added: the most the processes together can have served at once
        summed["max_in_flight"] = sum(int(s.get("max_in_flight", 0)) for s in each)
        return summed


def run_full_suite(
    api: httpx.Client,
    mock: str,
    concurrency: int,
    cpu: CpuClock,
    suite: str = "full",
    counts: MockCounts | None = None,
    latency: float = LATENCY,
    repeats: int = 1,
) -> dict[str, Any]:
    """One evaluation of the suite (x `repeats`) at this concurrency, from POST to its settled status; `cpu`: the
    API's and the workers' CPU seconds so far; `counts`: where the mock's counts are read (default: `mock` itself);
    `latency`: the mock's, for the ideal C / latency."""
    counts = counts or MockCounts(mock)
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
    probe = api.post("/v1/targets", json={"name": "write probe", "base_url": f"{mock}/v1", "model": "probe"})
    probe.raise_for_status()
    counts.reset()
    cpu_before = cpu()
    posted_at, started = time.time(), time.perf_counter()
    created = api.post(
        "/v1/evaluations", json={"target_id": target.json()["id"], "suite": suite, "repeats": repeats}
    )
    created.raise_for_status()
    post_s = time.perf_counter() - started
    evaluation_id = created.json()["id"]
    settled = threading.Event()
    writes: list[float] = []
    write_codes: Counter[int] = Counter()
    writer = threading.Thread(
        target=write_while, args=(api, probe.json()["id"], settled, writes, write_codes)
    )
    writer.start()
    try:
        while (body := api.get(f"/v1/evaluations/{evaluation_id}").json())["status"] not in TERMINAL:
            if time.perf_counter() - started > 1800:
                raise SystemExit(f"{evaluation_id} did not settle in 30 min: {body}")
            time.sleep(POLL_S)
    finally:
        settled.set()
        writer.join()
    seconds, settled_at = time.perf_counter() - started, time.time()
    stats = counts.stats()
    calls = int(stats.get("requests", 0))
    api_cpu, workers_cpu = (after - before for after, before in zip(cpu(), cpu_before, strict=True))
    ideal = concurrency / latency
    return {
        "evaluation_id": evaluation_id,
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
        "mock_cpu_ms_per_call": round(1000 * stats.get("cpu_s", 0.0) / calls, 3) if calls else None,
        "mock_max_in_flight": int(stats.get("max_in_flight", 0)),
        "post_s": round(post_s, 2),
        "api_writes_during_run": {**summary(writes), "codes": dict(write_codes)},
        **timeline(stats, posted_at, settled_at, concurrency),
    }


def write_while(
    api: httpx.Client, target_id: str, settled: threading.Event, writes: list[float], codes: Counter[int]
) -> None:
    """What a user changing a target waits while the run goes: one PATCH every WRITE_EVERY_S, on a client and a
    thread of its own so a slow write never delays seeing the run settle."""
    with httpx.Client(base_url=api.base_url, headers=api.headers, timeout=60) as own:
        while not settled.wait(WRITE_EVERY_S):
            started = time.perf_counter()
            changed = own.patch(f"/v1/targets/{target_id}", json={"model": f"probe {len(writes)}"})
            writes.append((time.perf_counter() - started) * 1000)
            codes[changed.status_code] += 1


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
    base: str, cpu: CpuClock, api: httpx.Client, mock: str, concurrency: int, pollers: int, suite: str
) -> dict[str, Any]:
    """The full suite at this concurrency while `pollers` public clients poll; their latencies and the run's."""
    samples: dict[str, list[float]] = {p: [] for p in POLLED}
    codes: Counter[str] = Counter()
    stop = asyncio.Event()
    clients = [asyncio.create_task(poller(base, n, stop, samples, codes)) for n in range(pollers)]
    await asyncio.sleep(2.0)  # every poller has started and holds its connection
    try:
        run = await asyncio.to_thread(run_full_suite, api, mock, concurrency, cpu, suite)
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


def speed_unit() -> float:
    """The machine's speed just after a run: µs of CPU for sum(range(1000)) (bench.grading_speed's unit). A
    shared machine's speed moves by up to 2x within minutes; CPU ms per call is read against it."""
    return round(reference_unit(), 1)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure(
    base: str, key: str, mock: str, cpu: CpuClock, args: argparse.Namespace, label: str = "", **extra: Any
) -> dict[str, Any]:
    """Every run one server gets: the suite at each concurrency (each beside inspect-ai unless skipped), then
    the polled run; `label` and `extra` name the deployment in each run's line."""
    results: dict[str, Any] = {}

    def record(name: str, run: dict[str, Any]) -> dict[str, Any]:
        results[name] = run = {**extra, **run}
        print(json.dumps({"run": name, **run}), flush=True)
        return run

    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as api:
        for c in args.concurrency:
            note(f"{args.suite} suite through the API at C={c}{label} (load {load()[0]})")
            r = record(
                f"helmbench C={c}{label}",
                {**run_full_suite(api, mock, c, cpu, args.suite), "load": load(), "unit_us": speed_unit()},
            )
            note(
                f"{r['calls']} calls in {r['seconds']} s: {r['calls_per_s']} calls/s ({r['pct_ideal']}% of ideal), "
                f"CPU ms/call API {r['api_cpu_ms_per_call']} workers {r['workers_cpu_ms_per_call']} "
                f"mock {r['mock_cpu_ms_per_call']}, load {r['load']}, reference unit {r['unit_us']} µs"
            )
            if "calls_s" in r:
                note(
                    f"POST answered in {r['post_s']} s, first call after {r['post_to_first_call_s']} s, "
                    f"calls {r['calls_s']} s with "
                    f"{r['mean_in_flight']} in flight on average ({r['slots_busy_pct']}% of C), "
                    f"last answer to settled {r['last_answer_to_settled_s']} s; answer to next request on a "
                    f"connection (ms; each worker process keeps a pool of its own, so with several a connection "
                    f"also waits while another process's calls hold the slots): {r['slot_gap_ms']}"
                )
            note(f"a target changed through the API while the run went (ms): {r['api_writes_during_run']}")
            if not args.skip_inspect:
                note(f"inspect-ai on the same mock, {r['calls']} calls at C={c}")
                record(f"inspect C={c}{label}", {**inspect_same_mock(mock, r["calls"], c), "load": load()})
        if args.pollers:
            c = args.poll_concurrency
            quiet = results.get(f"helmbench C={c}{label}")
            if quiet is None:
                quiet = results[f"helmbench C={c}{label}"] = {
                    **extra,
                    **run_full_suite(api, mock, c, cpu, args.suite),
                    "load": load(),
                }
            note(f"{args.suite} suite at C={c}{label} under {args.pollers} public pollers (load {load()[0]})")
            polled = asyncio.run(run_with_pollers(base, cpu, api, mock, c, args.pollers, args.suite))
            polled["load"] = load()
            polled["calls_per_s_vs_quiet"] = round(polled["calls_per_s"] / quiet["calls_per_s"], 3)
            results[f"helmbench C={c}{label} + {args.pollers} pollers"] = {**extra, **polled}
            print(json.dumps({"run": f"helmbench C={c}{label} + pollers", **extra, **polled}), flush=True)
    return results


def workers_label(n: int) -> str:
    return f", {n} worker{'s' if n > 1 else ''}"


def scaled_out(mock: str, args: argparse.Namespace) -> dict[str, Any]:
    """The runs once per worker count, each on a deployment of its own (fresh database, queue, processes), and
    each count's calls/s over the first count's."""
    results: dict[str, Any] = {}
    for n in args.workers:
        with tempfile.TemporaryDirectory(prefix=f"helmbench-api-e2e-{n}w-") as tmp:
            root = Path(tmp)
            env = deployment.environment(root) | BENCH_SETTINGS
            with (
                deployment.scale_out(
                    env, root, args.postgres_url, args.redis_url, "helmbench_api_e2e"
                ) as scaled,
                deployment.running(scaled, root, n) as up,
                profiled(args.profile, [w.pid for w in up.workers], f"{n}w", args.profile_gil),
            ):
                pids = [w.pid for w in up.workers]
                label = workers_label(n)
                results |= measure(
                    up.url,
                    up.admin_key,
                    mock,
                    partial(server_cpu_s, up.api.pid, pids),
                    args,
                    label,
                    workers=n,
                    load_start=load(),
                )
    first = args.workers[0]
    for c in args.concurrency:
        base = results.get(f"helmbench C={c}{workers_label(first)}")
        for n in args.workers[1:]:
            run = results.get(f"helmbench C={c}{workers_label(n)}")
            if base and run:
                ratio = round(run["calls_per_s"] / base["calls_per_s"], 3)
                results[f"calls/s C={c}: {n} vs {first} workers"] = ratio
                note(f"C={c}: {n} workers at {ratio}x the calls/s of {first}")
    return results


@contextmanager
def profiled(folder: Path | None, pids: Sequence[int], label: str, gil: bool = False) -> Iterator[None]:
    """py-spy (the bench extra) sampling each worker while the runs go: collapsed stacks, one file per worker,
    and a flame graph of the first. Sampling pauses the process it reads, so read the CPU figures of a run
    without --profile. `gil`: only the thread holding the interpreter lock is sampled, so a thread waiting for
    it (a database thread while the loop grades) is not counted as working: shares closer to CPU time."""
    if folder is None:
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    spy = str(Path(sys.executable).with_name("py-spy"))
    procs = []
    for i, pid in enumerate(pids):
        for fmt, ext in [("raw", "txt")] + ([("flamegraph", "svg")] if i == 0 else []):
            out = folder / f"worker-{label}-{i}.{ext}"
            command = [spy, "record", "--pid", str(pid), "--rate", "200", "--format", fmt, "-o", str(out)]
            command += ["--gil"] if gil else []
            procs.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        yield
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        for proc in procs:
            proc.wait(timeout=60)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.api_e2e", description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--pollers", type=int, default=100, help="0: no run under pollers")
    parser.add_argument("--poll-concurrency", type=int, default=64)
    parser.add_argument("--skip-inspect", action="store_true")
    parser.add_argument("--mock-url", default=None, help="a running mock instead of starting one")
    parser.add_argument("--suite", default="full", help="a shorter look: quick")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=None,
        help="scale-out: serve + N `helmbench worker`s on Redis and PostgreSQL, once per N",
    )
    parser.add_argument(
        "--redis-url", default=None, help="scale-out: default a redis-server of the run's own"
    )
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("HELMBENCH_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"),
        help="scale-out: a server where the bench may create (and drop) a database of its own per run",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="scale-out: py-spy samples each worker while it runs; collapsed stacks and a flame graph here",
    )
    parser.add_argument(
        "--profile-gil",
        action="store_true",
        help="with --profile: sample only the thread holding the interpreter lock (shares closer to CPU time)",
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the servers below are stopped on `timeout`

    results: dict[str, Any] = {"load_start": load(), "cores": os.cpu_count()}
    if args.workers:
        with mock_at(args.mock_url) as mock:
            results |= scaled_out(mock, args)
    else:
        var = Path(tempfile.mkdtemp(prefix="helmbench-api-e2e-"))
        with mock_at(args.mock_url) as mock, serve(var) as (base, pid):
            admin = (var / "admin.key").read_text().strip()
            results |= measure(base, admin, mock, partial(server_cpu_s, pid), args)
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
