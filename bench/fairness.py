"""Fair shares: how long a quick run takes alone, and started behind another team's big run (app/queue/fair.py).

    python -m bench.fairness                           # full x 10 against a 50 ms mock, then quick 15 s later
    python -m bench.fairness --repeats 10 --latency 0.2 --delay 15
    python -m bench.fairness --big-alone               # the big run alone to its end

What a user runs: `helmbench serve` on the embedded default (its local workers claim shards from the database),
the real library, two mock targets (one for each run, so neither shares the other's concurrency cap), the API only.
The big run belongs to the platform admin's team, the quick run to a team of its own (created through the API),
as when a product team gates a release while another team's nightly run goes. First the quick suite alone; then
the full suite x `--repeats` at `--concurrency`, and `--delay` s after its POST the quick suite again. The quick
run is timed from its POST to its settled status (goal: at most twice its time alone). The big run's pace (its
mock's calls/s; progress is written in steps) is read over the `--window` s before the quick POST and over the
quick run's life; the calls it did not make meanwhile, against its whole length, say how much longer it takes for
the quick run beside it (goal: under 10%). The big run is then cancelled (its own speed is bench/api_e2e.py's
business). Before fair shares a quick run waited for every shard of the big run to start (2.8 s alone, 326 s
behind a full x 7 run). With --big-alone, only the big run, alone, from its POST to its settled status: its items/s.

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
    # A full x 10 run (140,080 items) is over the service's default largest evaluation (100,000): the operator of
    # a service with such runs raises it, as this one does.
    os.environ.setdefault("HELMBENCH_MAX_MATRIX_ITEMS", "1000000")
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
            quick_api = httpx.Client(base_url=base, headers=team_headers(api, "product team"), timeout=30)
            with quick_api:
                return race(api, quick_api, big_mock, quick_mock, args)


def team_headers(admin: httpx.Client, name: str) -> dict[str, str]:
    """A new team's admin key, as its Authorization header."""
    response = admin.post("/v1/teams", json={"name": name})
    response.raise_for_status()
    return {"Authorization": f"Bearer {response.json()['admin_key']['key']}"}


def done_count(api: httpx.Client, evaluation_id: str) -> int:
    progress = status(api, evaluation_id)["progress"]
    return int(progress["done"] + progress["failed"])


def calls_answered(mock: str) -> int:
    """The calls a mock target has served: a run's pace read where it happens (progress is written a batch of
    items at a time, so over a few seconds it moves in steps)."""
    return int(httpx.get(f"{mock}/stats", timeout=10).json()["requests"])


def race(
    api: httpx.Client, quick_api: httpx.Client, big_mock: str, quick_mock: str, args: argparse.Namespace
) -> dict[str, Any]:
    """The quick run alone, then the big run and, `delay` s later, the quick run of the other team beside it."""
    quick_target = add_target(quick_api, "quick", quick_mock, args.concurrency)
    big_target = add_target(api, "big", big_mock, args.concurrency)
    load_before = os.getloadavg()
    started = time.perf_counter()
    alone_s, alone = until_settled(quick_api, start(quick_api, quick_target, "quick"), started)
    note(f"quick alone: {alone_s} s ({alone['progress']['total']} items)")

    big_id = start(api, big_target, "full", args.repeats)
    big_total = status(api, big_id)["progress"]["total"]
    time.sleep(max(0.0, args.delay - args.window))  # the bench's own schedule: the big run gets going
    window_start, window_calls = time.perf_counter(), calls_answered(big_mock)
    time.sleep(args.window)
    at_post, calls_at_post = done_count(api, big_id), calls_answered(big_mock)
    pace_before = (calls_at_post - window_calls) / (time.perf_counter() - window_start)
    started = time.perf_counter()
    behind_s, behind = until_settled(quick_api, start(quick_api, quick_target, "quick"), started)
    pace_during = (calls_answered(big_mock) - calls_at_post) / (time.perf_counter() - started)
    done = done_count(api, big_id)
    note(f"quick behind the big run: {behind_s} s; big run {done}/{big_total}")
    api.post(f"/v1/evaluations/{big_id}/cancel").raise_for_status()
    return {
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "quick_items": alone["progress"]["total"],
        "quick_alone_s": alone_s,
        "quick_alone_status": alone["status"],
        "big_items": big_total,
        "quick_posted_after_s": args.delay,
        "big_done_at_quick_post": at_post,
        "quick_behind_big_s": behind_s,
        "quick_behind_big_status": behind["status"],
        "quick_behind_vs_alone": round(behind_s / alone_s, 2) if alone_s else None,
        "big_done_when_quick_settled": done,
        "big_pct_when_quick_settled": round(100 * done / big_total, 1),
        "big_calls_per_s_before": round(pace_before, 1),
        "big_calls_per_s_during": round(pace_during, 1),
        "big_pace_kept": round(pace_during / pace_before, 3) if pace_before else None,
        # The calls the big run did not make while the quick one ran, against the whole big run at its pace: how
        # much longer the big run takes for having a quick run beside it (the goal: under 10%).
        "big_run_slower_pct": (
            round(100 * max(0.0, pace_before - pace_during) * behind_s / big_total, 2) if big_total else None
        ),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
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
    parser.add_argument("--repeats", type=int, default=10, help="the big run: suite full x this")
    parser.add_argument("--latency", type=float, default=0.05, help="the mock targets' latency in seconds")
    parser.add_argument("--concurrency", type=int, default=64, help="each target's max_concurrency")
    parser.add_argument("--big-alone", action="store_true", help="only the big run, alone, to its end")
    parser.add_argument(
        "--delay", type=float, default=15.0, help="seconds between the big and the quick POST"
    )
    parser.add_argument(
        "--window",
        type=float,
        default=5.0,
        help="seconds before the quick POST over which the big run's pace is read",
    )
    print(json.dumps(measure(parser.parse_args(argv))), flush=True)


if __name__ == "__main__":
    main()
