"""The runner end to end (expansion, calls, grading, batched persistence) against the mock, in one process.

    python -m bench.runner_e2e --concurrency 64 --repeats 1            # 3,000 items, L = 200 ms
    python -m bench.runner_e2e --concurrency 256 --faults               # with the fault mix (bench/README.md)
    python -m bench.runner_e2e --redis-url redis://127.0.0.1:6379/15    # limits shared through Redis

The mock runs in its own process. Prints one JSON line: items/s, ideal items/s (C / L), peak RSS of this
process, and what the database holds (rows, distinct keys, answered, errors by class).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvloop

from app.config import Settings
from app.observability.logging import configure_logging
from app.runner import shard as shard_module
from app.runner.runtime import freeze_startup_heap
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.mockproc import mock_process
from bench.synthetic import synthetic_library

FAULTS = {"rate_5xx": 0.10, "rate_429": 0.05, "rate_timeout": 0.02, "rate_malformed": 0.01}


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.runner_e2e")
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--latency", type=float, default=0.2)
    p.add_argument("--conditions", type=int, default=30)
    p.add_argument("--perturbations", type=int, default=100)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--shard-size", type=int, default=500)
    p.add_argument("--max-jobs", type=int, default=4)
    p.add_argument(
        "--faults", action="store_true", help="10%% 5xx, 5%% 429 (Retry-After 1), 2%% timeouts, 1%% malformed"
    )
    p.add_argument("--timeout", type=float, default=2.0, help="per-call timeout when --faults")
    p.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    p.add_argument("--mock-url", default=None, help="use a running mock instead of starting one")
    p.add_argument(
        "--redis-url", default=None, help="scale-out mode: the target's limits are kept in this Redis"
    )
    return p.parse_args(argv)


class RssWatch:
    """Samples RSS; keeps the items phase apart from the end-of-evaluation report (app/scoring)."""

    def __init__(self) -> None:
        self.peak_items_mb = 0.0
        self.in_report = False
        self._page = resource.getpagesize()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        original = shard_module.finish_evaluation

        def finish(deps: object, evaluation_id: str) -> str | None:
            self.note()
            self.in_report = True  # the last shard computes the report inside finish_evaluation
            try:
                return original(deps, evaluation_id)  # type: ignore[arg-type]
            finally:
                self.in_report = False

        shard_module.finish_evaluation = finish  # bench-only instrumentation

    def rss_mb(self) -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * self._page / 2**20

    def note(self) -> None:
        if not self.in_report:
            self.peak_items_mb = max(self.peak_items_mb, self.rss_mb())

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            self.note()

    def __enter__(self) -> RssWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()


async def _run(args: argparse.Namespace, base_url: str, var_dir: Path) -> dict[str, object]:
    settings = Settings(
        var_dir=var_dir,
        database_url=args.database_url,
        redis_url=args.redis_url,
        target_allowlist="127.0.0.0/8",
        shard_size=args.shard_size,
        worker_max_jobs=args.max_jobs,
        request_timeout_s=args.timeout if args.faults else 30.0,
        max_retries=4,
        retry_budget_s=60.0,
        secret_keys=None,
    )
    deps = make_deps(settings, synthetic_library(args.conditions, args.perturbations))
    evaluation = create_evaluation(
        deps, base_url=base_url + "/v1", concurrency=args.concurrency, repeats=args.repeats
    )
    started, cpu = time.perf_counter(), time.process_time()
    with RssWatch() as watch:
        await run_evaluation(deps, evaluation, args.max_jobs)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    result = written(deps, evaluation.id)
    await deps.targets.aclose()
    deps.engine.dispose()
    ideal = args.concurrency / args.latency
    return {
        "concurrency": args.concurrency,
        "items": evaluation.total,
        "seconds": round(seconds, 2),
        "items_per_s": round(evaluation.total / seconds, 1),
        "ideal_items_per_s": round(ideal, 1),
        "pct_ideal": round(100 * evaluation.total / seconds / ideal, 1),
        "faults": args.faults,
        "cpu_ms_per_item": round(1000 * cpu / evaluation.total, 2),
        "rows": result.rows,
        "distinct_keys": result.distinct_keys,
        "answered": result.answered,
        "errors": result.errors,
        "attempts": result.attempts,
        "status": result.status,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "peak_rss_items_mb": round(watch.peak_items_mb, 1),
    }


def main(argv: list[str] | None = None) -> None:
    args = _args(argv)
    configure_logging("error")
    mock = dict(FAULTS, timeout_seconds=args.timeout * 3) if args.faults else {}
    uvloop.install()  # as `helmbench worker` runs
    freeze_startup_heap()  # likewise, once imports are done
    with tempfile.TemporaryDirectory(prefix="helmbench-bench-") as tmp:
        if args.mock_url:
            out = asyncio.run(_run(args, args.mock_url, Path(tmp)))
        else:
            with mock_process(latency=args.latency, **mock) as base_url:
                out = asyncio.run(_run(args, base_url, Path(tmp)))
    print(json.dumps(out), flush=True)
    sys.exit(0 if out["rows"] == out["items"] == out["distinct_keys"] else 1)


if __name__ == "__main__":
    main()
