"""Fair shares: how long a quick run takes alone, and started behind a big run (app/queue/fair.py).

    python -m bench.fairness                           # full x 2 against a 50 ms mock, then quick 5 s later
    python -m bench.fairness --repeats 1 --latency 0.2 --delay 15
    python -m bench.fairness --big-alone               # the big run alone to its end: fair shares cost it nothing

What a user runs: `helmbench serve` on the embedded default (its local workers claim shards from the database),
the real library, two mock targets (one for each run, so neither shares the other's concurrency cap), the API only.
First the quick suite alone; then the full suite x `--repeats` at `--concurrency`, and `--delay` s after its POST
the quick suite again. The quick run is timed from its POST to its settled status; the big run's progress is read
at that moment, and the big run is then cancelled (its own speed is bench/api_e2e.py's business). Before fair
shares a quick run waited for every shard of the big run to start (the issue: 2.8 s alone, 326 s behind a full
x 7 run). With --big-alone, only the big run, alone, from its POST to its settled status: its items/s.

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from app.store.evaluations import TERMINAL
from bench.api_e2e import serve
from bench.mockproc import mock_process

POLL_S = 0.05


def note(text: str) -> None:
    print(f"[fairness] {text}", file=sys.stderr, flush=True)


def add_target(api: httpx.Client, name: str, mock: str, concurrency: int) -> str:
    body = {"name": name, "base_url": f"{mock}/v1", "model": "mock-model", "max_concurrency": concurrency}
    response = api.post("/v1/targets", json=body)
    response.raise_for_status()
    return str(response.json()["id"])


def start(api: httpx.Client, target_id: str, suite: str, repeats: int = 1) -> str:
    response = api.post("/v1/evaluations", json={"target_id": target_id, "suite": suite, "repeats": repeats})
    response.raise_for_status()
    return str(response.json()["id"])


def status(api: httpx.Client, evaluation_id: str) -> dict[str, Any]:
    return api.get(f"/v1/evaluations/{evaluation_id}").json()


def until_settled(api: httpx.Client, evaluation_id: str, started: float) -> tuple[float, dict[str, Any]]:
    """Seconds from `started` to the evaluation's settled status, and that status."""
    while (body := status(api, evaluation_id))["status"] not in TERMINAL:
        if time.perf_counter() - started > 1800:
            raise SystemExit(f"{evaluation_id} did not settle in 30 min: {body}")
        time.sleep(POLL_S)
    return round(time.perf_counter() - started, 2), body


def measure(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="helmbench-fair-") as tmp:
        var = Path(tmp) / "var"
        var.mkdir()
        return measure_in(var, args)


def measure_in(var: Path, args: argparse.Namespace) -> dict[str, Any]:
    with (
        mock_process(latency=args.latency) as big_mock,
        mock_process(latency=args.latency) as quick_mock,
        serve(var) as (base, _pid),
    ):
        key = (var / "admin.key").read_text().strip()
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=base, headers=headers, timeout=30) as api:
            if args.big_alone:
                return big_alone(api, big_mock, args)
            quick_target = add_target(api, "quick", quick_mock, args.concurrency)
            big_target = add_target(api, "big", big_mock, args.concurrency)
            load_before = os.getloadavg()
            started = time.perf_counter()
            alone_s, alone = until_settled(api, start(api, quick_target, "quick"), started)
            note(f"quick alone: {alone_s} s ({alone['progress']['total']} items)")

            big_id = start(api, big_target, "full", args.repeats)
            big_started = time.perf_counter()
            big_total = status(api, big_id)["progress"]["total"]
            time.sleep(args.delay)  # the bench's own schedule: the quick run comes while the big one goes
            at_post = status(api, big_id)["progress"]
            started = time.perf_counter()
            behind_s, behind = until_settled(api, start(api, quick_target, "quick"), started)
            big_now = status(api, big_id)
            big_s = round(time.perf_counter() - big_started, 2)
            note(f"quick behind the big run: {behind_s} s; big run {big_now['progress']['done']}/{big_total}")
            api.post(f"/v1/evaluations/{big_id}/cancel").raise_for_status()
            load_after = os.getloadavg()
    done = big_now["progress"]["done"] + big_now["progress"]["failed"]
    return {
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "quick_items": alone["progress"]["total"],
        "quick_alone_s": alone_s,
        "quick_alone_status": alone["status"],
        "big_items": big_total,
        "quick_posted_after_s": args.delay,
        "big_done_at_quick_post": at_post["done"] + at_post["failed"],
        "quick_behind_big_s": behind_s,
        "quick_behind_big_status": behind["status"],
        "big_done_when_quick_settled": done,
        "big_pct_when_quick_settled": round(100 * done / big_total, 1),
        "big_items_per_s": round(done / big_s, 1),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "cpus": os.cpu_count(),
    }


def big_alone(api: httpx.Client, mock: str, args: argparse.Namespace) -> dict[str, Any]:
    """The big run with nothing beside it, to its end."""
    target_id = add_target(api, "big", mock, args.concurrency)
    load_before = os.getloadavg()
    started = time.perf_counter()
    seconds, body = until_settled(api, start(api, target_id, "full", args.repeats), started)
    done = body["progress"]["done"] + body["progress"]["failed"]
    return {
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "big_items": body["progress"]["total"],
        "big_status": body["status"],
        "big_alone_s": seconds,
        "big_items_per_s": round(done / seconds, 1),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=2, help="the big run: suite full x this")
    parser.add_argument("--latency", type=float, default=0.05, help="the mock targets' latency in seconds")
    parser.add_argument("--concurrency", type=int, default=64, help="each target's max_concurrency")
    parser.add_argument("--big-alone", action="store_true", help="only the big run, alone, to its end")
    parser.add_argument("--delay", type=float, default=5.0, help="seconds between the big and the quick POST")
    print(json.dumps(measure(parser.parse_args(argv))), flush=True)


if __name__ == "__main__":
    main()
