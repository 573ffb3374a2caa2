"""`make bench`: the runner end to end against the mock, inspect-ai on the same mock, faults, memory at scale,
and CPU per graded reply (bench/grading_speed.py).

    python -m bench.run_all            # the full set (about 10 minutes on 2 cores)
    python -m bench.run_all --quick    # smaller counts, for a look

Every run is its own process (so peak RSS is that run's); the mock is another. Targets are those of issue 6:
C=64 at >= 90% of ideal (C / L), C=256 at >= 600 items/s, the fault mix fully accounted for (no item lost or
doubled), 100,000 items under 300 MB peak RSS with time linear in items. Load average is printed: on a shared
box the figures move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

from bench.mockproc import mock_process

LATENCY = 0.2


def _run(module: str, *args: str, timeout: float = 1800) -> dict[str, Any]:
    """Run `python -m module args` and return its last JSON line (or the failure)."""
    proc = subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=timeout
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"failed": f"exit {proc.returncode}: {proc.stderr.strip()[-500:]}"}
    return json.loads(lines[-1])


def _verdict(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def _row(name: str, r: dict[str, Any]) -> str:
    if "failed" in r or "skipped" in r:
        return f"{name:<34} {r.get('failed') or r.get('skipped')}"
    ideal = LATENCY and r["concurrency"] / LATENCY
    pct = 100 * r["items_per_s"] / ideal
    extra = (
        f"cpu {r['cpu_ms_per_item']:.2f} ms/item  rss {r['peak_rss_mb']:.0f} MB"
        if "cpu_ms_per_item" in r
        else ""
    )
    return (
        f"{name:<34} C={r['concurrency']:<4} {r['items']:>7} items {r['seconds']:>8.1f} s "
        f"{r['items_per_s']:>7.1f} items/s  ideal {ideal:>6.0f} ({pct:5.1f}%)  {extra}"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.run_all")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--skip-inspect", action="store_true")
    p.add_argument("--skip-memory", action="store_true")
    p.add_argument("--skip-grading", action="store_true")
    p.add_argument("--skip-board", action="store_true")
    args = p.parse_args(argv)
    n = 600 if args.quick else 3000
    load = os.getloadavg()
    print(
        f"HELMbench runner benchmarks: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f}, "
        f"mock latency {LATENCY * 1000:.0f} ms, {n} items per throughput run",
        flush=True,
    )
    results: dict[str, dict[str, Any]] = {}
    conditions = "30" if not args.quick else "6"
    with mock_process(latency=LATENCY) as url:
        for c in (64, 256):
            results[f"runner C={c}"] = r = _run(
                "bench.runner_e2e",
                "--concurrency",
                str(c),
                "--mock-url",
                url,
                "--conditions",
                conditions,
                "--perturbations",
                "100",
            )
            print(_row("helmbench runner (end to end)", r), flush=True)
        if not args.skip_inspect:
            for c in (64, 256):
                results[f"inspect C={c}"] = r = _run(
                    "bench.inspect_compare", "--concurrency", str(c), "--items", str(n), "--mock-url", url
                )
                print(_row("inspect-ai, same mock", r), flush=True)
    faults = results["faults"] = _run(
        "bench.runner_e2e",
        "--concurrency",
        "256",
        "--faults",
        "--conditions",
        conditions,
        "--perturbations",
        "100",
    )
    print(_row("fault mix 10/5/2/1 % (own mock)", faults), flush=True)
    if "failed" not in faults:
        accounted = faults["answered"] + sum(faults["errors"].values())
        print(
            f"{'':<34} answered {faults['answered']}, errors {faults['errors']}, "
            f"attempts {faults['attempts']}, "
            f"rows {faults['rows']}, distinct keys {faults['distinct_keys']}, accounted {accounted}",
            flush=True,
        )
    memory: list[dict[str, Any]] = []
    if not args.skip_memory:
        sizes = (2, 6, 20) if not args.quick else (1, 2, 4)
        with mock_process(latency=LATENCY) as url:
            for repeats in sizes:  # 40 x 125 = 5,000 items per repeat
                r = _run(
                    "bench.runner_e2e",
                    "--concurrency",
                    "256",
                    "--mock-url",
                    url,
                    "--conditions",
                    "40",
                    "--perturbations",
                    "125",
                    "--repeats",
                    str(repeats),
                    "--shard-size",
                    "500",
                )
                memory.append(r)
                print(_row("memory and linearity", r), flush=True)
    board: dict[str, Any] = {}
    if not args.skip_board:
        size = ("--evaluations", "200", "--clients", "30", "--seconds", "10") if args.quick else ()
        board = _run("bench.board", *size)
        if "failed" not in board:
            for kind in ("json", "page", "page_country"):
                f = board[kind]
                print(
                    f"{'public board ' + kind:<34} {board['evaluations']} evaluations, {board['clients']} clients: "
                    f"p50 {f['p50_ms']:.1f} ms  p99 {f['p99_ms']:.1f} ms  max {f['max_ms']:.1f} ms",
                    flush=True,
                )
        else:
            print(f"public board: {board['failed']}", flush=True)
    print("\nTargets (issue 6):", flush=True)
    r64, r256 = results["runner C=64"], results["runner C=256"]
    if "failed" not in r64:
        print(
            f"  C=64 >= 90% of ideal 320/s: {r64['items_per_s']:.0f}/s = "
            f"{100 * r64['items_per_s'] / 320:.0f}%  {_verdict(r64['items_per_s'] >= 288)}"
        )
    if "failed" not in r256:
        print(f"  C=256 >= 600 items/s: {r256['items_per_s']:.0f}/s  {_verdict(r256['items_per_s'] >= 600)}")
    if "failed" not in faults:
        ok = (
            faults["rows"]
            == faults["distinct_keys"]
            == faults["items"]
            == (faults["answered"] + sum(faults["errors"].values()))
        )
        print(f"  faults: every item answered or with a final error, none lost or doubled: {_verdict(ok)}")
    good = [m for m in memory if "failed" not in m]
    if good:
        peak = max(m["peak_rss_mb"] for m in good)
        items_peak = max(m["peak_rss_items_mb"] for m in good)
        per_item = [m["seconds"] / m["items"] * 1000 for m in good]
        print(
            f"  {good[-1]['items']:,} items: peak RSS while running items {items_peak:.0f} MB < 300 MB: "
            f"{_verdict(items_peak < 300)}; including the end-of-run report (app/scoring) {peak:.0f} MB: "
            f"{_verdict(peak < 300)}"
        )
        print(
            f"  time linear in items: ms per item at {', '.join(format(m['items'], ',') for m in good)} = "
            f"{', '.join(f'{x:.2f}' for x in per_item)}: {_verdict(max(per_item) <= 1.5 * min(per_item))}"
        )
    if not args.skip_grading:
        sample = ["--sample", "5000"] if args.quick else []
        g = _run("bench.grading_speed", *sample)
        if "failed" in g:
            print(f"  grading speed: {g['failed']}")
        else:
            print(
                f"  grading CPU per graded item ({g['graded']:,} items, caches cold, load {g['load']:.1f}): "
                f"median {g['median_ms']:.3f} ms, p99 {g['p99_ms']:.3f} ms; target median <= 0.25 ms: "
                f"{_verdict(g['median_ms'] <= 0.25)}"
            )
    if board and "failed" not in board:
        p99 = ", ".join(f"{k} {board[k]['p99_ms']:.0f} ms" for k in ("json", "page", "page_country"))
        print(
            f"  board p99 < 50 ms JSON, < 100 ms pages, none failing: {p99}, failures {board['failures'] or 'none'}: "
            f"{_verdict(board['met'])} (load average {board['load_average'][0]:.1f})"
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
