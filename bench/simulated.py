"""A 20-turn simulated run: the runner plays conversations between the mock target and the toy simulator.

    python -m bench.simulated                  # 1,080 conversations (the suite's 120 x 9 repeats), C = 256
    python -m bench.simulated --repeats 1      # 120 conversations, for a look

The real library's `simulated` suite (persona cards under its conditions) runs through run_shard as a worker runs
it: one target call and one simulator call per turn, each reply checked, each conversation graded and written
whole. The mock target (latency L) and the toy simulator (`helmbench example-simulator --never-stop`, so every
conversation runs to the cap) each run in their own process, on ports of --port-base and the next one.

The ideal is the target's: C conversations in flight (fewer if the run has fewer), each waiting L per turn, make
C / L target calls per second and C / (turns x L) conversations per second; the simulator's time per turn and the
runner's CPU (checks on every reply) are what keep a run under it.
Prints one JSON line: conversations/s and target calls/s against those ideals, simulator calls and faults, CPU per
turn, and the peak RSS of this process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvloop
from sqlmodel import Session, col, select

from app.benchmark.loader import load_library
from app.config import Settings
from app.observability.logging import configure_logging
from app.runner.runtime import freeze_startup_heap
from app.store.models import EvaluationItem
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.mockproc import mock_process
from bench.ports import wait_http

SUITE = "simulated"


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.simulated")
    p.add_argument("--concurrency", type=int, default=256)
    p.add_argument("--latency", type=float, default=0.2, help="the mock target's reply time L")
    p.add_argument("--turns", type=int, default=20)
    p.add_argument("--repeats", type=int, default=9, help="of the suite's 120 conversations")
    p.add_argument("--shard-size", type=int, default=500)
    p.add_argument("--max-jobs", type=int, default=4)
    p.add_argument("--port-base", type=int, default=18700, help="mock target here, toy simulator on the next")
    return p.parse_args(argv)


@contextmanager
def toy_simulator(port: int) -> Iterator[str]:
    """`helmbench example-simulator --never-stop` in its own process; yields its base URL."""
    exe = Path(sys.executable).with_name("helmbench")
    argv = [str(exe), "example-simulator", "--port", str(port), "--never-stop"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/v1/models", timeout=60)
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _run(args: argparse.Namespace, target_url: str, sim_url: str, var_dir: Path) -> dict[str, object]:
    settings = Settings(
        var_dir=var_dir,
        target_allowlist="127.0.0.0/8",
        shard_size=args.shard_size,
        worker_max_jobs=args.max_jobs,
        request_timeout_s=30.0,
        max_retries=4,
        retry_budget_s=60.0,
        secret_keys=None,
    )
    library = load_library()
    deps = make_deps(settings, library)
    evaluation = create_evaluation(
        deps,
        base_url=target_url + "/v1",
        concurrency=args.concurrency,
        repeats=args.repeats,
        suite=SUITE,
        evaluation_fields={
            "simulator_config": {
                "base_url": sim_url + "/v1",
                "model": "helmbench-toy-simulator",
                "turn_cap": args.turns,
                "word_cap": settings.simulator_word_cap,
            }
        },
    )
    httpx.post(target_url + "/stats/reset")
    rss_before = _peak_rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    await run_evaluation(deps, evaluation, args.max_jobs)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    target_calls = int(httpx.get(target_url + "/stats").json().get("requests", 0))
    result = written(deps, evaluation.id)
    with Session(deps.engine) as session:
        checks = session.exec(
            select(EvaluationItem.checks).where(col(EvaluationItem.evaluation_id) == evaluation.id)
        ).all()
    convos = [c.get("conversation", {}) for c in checks]
    sim_calls = sum(c.get("simulator", {}).get("calls", 0) for c in convos)
    turns = [len(c.get("turns", [])) for c in convos]
    stops = Counter(c.get("stop_reason") for c in convos)
    faults = Counter(  # the fault's kind and, for an unreachable simulator, its error class
        ":".join(fault.split(": ")[:2]) if fault.startswith("simulator_unavailable") else fault.split(":")[0]
        for c in convos
        if (fault := c.get("simulator", {}).get("fault"))
    )
    deps.engine.dispose()
    total = evaluation.total
    in_flight = min(args.concurrency, total)  # fewer conversations than C cannot fill the target's slots
    ideal_calls = in_flight / args.latency
    ideal_convos = in_flight / (args.turns * args.latency)
    return {
        "concurrency": args.concurrency,
        "latency_s": args.latency,
        "turn_cap": args.turns,
        "conversations": total,
        "seconds": round(seconds, 2),
        "conversations_per_s": round(total / seconds, 2),
        "ideal_conversations_per_s": round(ideal_convos, 2),
        "target_calls": target_calls,
        "target_calls_per_s": round(target_calls / seconds, 1),
        "ideal_target_calls_per_s": round(ideal_calls, 1),
        "pct_ideal": round(100 * target_calls / seconds / ideal_calls, 1),
        "simulator_calls": sim_calls,
        "mean_turns": round(sum(turns) / max(1, len(turns)), 2),
        "stop_reasons": dict(stops),
        "simulator_faults": dict(faults),
        "rows": result.rows,
        "distinct_keys": result.distinct_keys,
        "errors": result.errors,
        "status": result.status,
        "cpu_ms_per_turn": round(1000 * cpu / max(1, sum(turns)), 3),
        "peak_rss_mb": round(_peak_rss_mb(), 1),
        "rss_before_run_mb": round(rss_before, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> None:
    args = _args(argv)
    configure_logging("error")
    uvloop.install()  # as `helmbench worker` runs
    freeze_startup_heap()
    with (
        tempfile.TemporaryDirectory(prefix="helmbench-bench-sim-") as tmp,
        mock_process(latency=args.latency, port=args.port_base) as target_url,
        toy_simulator(args.port_base + 1) as sim_url,
    ):
        out = asyncio.run(_run(args, target_url, sim_url, Path(tmp)))
    print(json.dumps(out), flush=True)
    sys.exit(0 if out["rows"] == out["conversations"] == out["distinct_keys"] else 1)


if __name__ == "__main__":
    main()
