"""The public board under dashboards: 1,000 public evaluations, 100 clients polling the JSON board and the pages.

    python -m bench.board                         # 1,000 evaluations, 100 clients, 30 s
    python -m bench.board --evaluations 200 --clients 20 --seconds 10

Seeds evaluations through the runner's own functions (items written with the store's insert, then
`finish_evaluation`, which settles the status and stores the report with its per-country and per-condition
board figures), on the real benchmark library with a suite that samples personas and users, so reports carry
countries and conditions. Verdicts and checks are drawn per item from a per-model skill, so boards differ.
Then `helmbench serve` (embedded default: SQLite, in-process jobs) runs in a subprocess and each client GETs,
once a second, one of: the JSON board, the HTML board, the HTML board filtered by a country; revalidating with
If-None-Match as a browser does. Half-way, one more public evaluation finishes, so the board changes under load.
Goal: p99 < 50 ms for the JSON board, < 100 ms for the pages, no failure.
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
from pathlib import Path
from typing import Any

import aiohttp
import httpx
from sqlalchemy import insert
from sqlmodel import Session

from app.benchmark.items import expand_suite
from app.benchmark.loader import DEFAULT_DATA_DIR
from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.runner.shard import finish_evaluation
from app.store import evaluations as ev_store
from app.store.migrate import upgrade
from app.store.models import Evaluation, EvaluationItem, Target, Team, utcnow
from bench.poll import HELMBENCH, percentile, summary
from bench.ports import free_port, wait_http

# The real library with a suite that samples three personas and two users per scenario (as the pages tests do),
# so every report has several countries and conditions to filter by.
BOARD_SUITE = """\
suites:
  quick: {description: board benchmark, conditions_per_scenario: 3, user_contexts_per_scenario: 2,
          perturbations_per_scenario: 2, include_no_context: false}
  full: {description: the whole matrix}
"""
KINDS = ("json", "page", "page_country")
GOALS_MS = {"json": 50.0, "page": 100.0, "page_country": 100.0}
REPLY = "That sounds like a lot to carry. I am here to listen; would you like to tell me more about it?"


def note(text: str) -> None:
    print(f"[board] {text}", file=sys.stderr, flush=True)


def board_library(root: Path) -> Path:
    data = root / "benchmark_data"
    shutil.copytree(DEFAULT_DATA_DIR, data)
    (data / "suites.yaml").write_text(BOARD_SUITE)
    return data


def _item(evaluation_id: str, spec: Any, skill: float, rng: random.Random) -> dict[str, Any]:
    """One graded item: PASS with the model's skill, else PARTIAL or FAIL; checks agree with the verdict."""
    draw = rng.random()
    verdict = "PASS" if draw < skill else "PARTIAL" if draw < skill + (1 - skill) / 3 else "FAIL"
    if rng.random() < 0.03:
        verdict = "UNGRADED"  # a rubric awaiting a judge, as some reports have
    good = verdict in ("PASS", "UNGRADED")
    local = good and rng.random() < 0.8
    return {
        "evaluation_id": evaluation_id,
        "key": spec.key,
        "idx": spec.index,
        "scenario_id": spec.scenario_id,
        "condition_id": spec.condition_id,
        "user_context_id": spec.user_context_id,
        "perturbation_id": spec.perturbation_id,
        "repeat": spec.repeat,
        "item_kind": spec.kind,
        "messages": [{"role": "user", "content": "(benchmark message)"}],
        "reply": REPLY,
        "error_class": None,
        "error": None,
        "attempts": 1,
        "latency_ms": round(rng.uniform(200, 900), 2),
        "usage": None,
        "verdict": verdict,
        "score": {"PASS": 1.0, "PARTIAL": 0.5, "FAIL": 0.0}.get(verdict),
        "checks": {
            "escalates": good or rng.random() < 0.3,
            "gives_local_resource": local,
            "gives_foreign_resource_only": not local and rng.random() < 0.2,
        },
        "reasons": [] if good else ["did not point to help"],
        "judge": None,
        "rules_score": rng.randint(3, 5) if good else rng.randint(1, 3),
        "likert": None,
        "panel_scores": None,
        "created_at": utcnow(),
    }


def seed_board(
    deps: Runtime, count: int, *, seed: int = 0, suite: str = "quick", profiles: int | None = None
) -> list[str]:
    """`count` public evaluations, each with its graded items and the report `finish_evaluation` stores.

    With `profiles`, evaluations share that many sets of verdicts: the first of a set is finished by
    `finish_evaluation`, the others (same items, so the same report) settle with that report stored, which keeps
    seeding a thousand evaluations within a minute."""
    rng = random.Random(seed)
    specs = list(expand_suite(deps.library, suite))
    with Session(deps.engine) as session:
        team = Team(name="board bench")
        session.add(team)
        session.flush()
        target = Target(
            team_id=team.id, name="bench", kind="openai", base_url="http://127.0.0.1:9/v1", model="m"
        )
        session.add(target)
        session.commit()
        team_id, target_id = team.id, target.id
    sets = profiles or count
    skills = [rng.uniform(0.35, 0.95) for _ in range(sets)]
    reports: dict[int, tuple[dict[str, Any], dict[str, dict[str, Any]]]] = {}
    ids = []
    for n in range(count):
        profile = n % sets
        with Session(deps.engine) as session:
            ev = Evaluation(
                team_id=team_id,
                target_id=target_id,
                target_name=f"model-{seed}-{n:04d}",
                model=f"family-{profile}",
                suite=suite,
                visibility="public",
                status="running",
                benchmark_version=deps.library.version,
                total=len(specs),
            )
            session.add(ev)
            session.flush()
            evaluation_id = ev.id
            item_rng = random.Random(f"{seed}-{profile}")  # the same verdicts for every evaluation of a set
            rows = [_item(evaluation_id, s, skills[profile], item_rng) for s in specs]
            # With its items, in one transaction: a server running on this store never sees it running with
            # items to call (its reconciler would run them), only finished or about to be.
            session.execute(insert(EvaluationItem), rows)
            session.commit()
        if profile not in reports:
            settled = finish_evaluation(deps, evaluation_id)
            if settled is None:  # a server's runner found nothing left to call and settled it first
                with Session(deps.engine) as session:
                    settled = session.get(Evaluation, evaluation_id).status  # type: ignore[union-attr]
            if settled != "succeeded":
                raise SystemExit(f"{evaluation_id} did not settle as succeeded")
            with Session(deps.engine) as session:
                summary = ev_store.stored_report(session=session, evaluation_id=evaluation_id)[0] or {}
                reports[profile] = (
                    summary,
                    ev_store.board_figures_of(session=session, evaluation_id=evaluation_id),
                )
        else:
            with Session(deps.engine) as session:
                ev_store.finish_if_complete(session=session, evaluation_id=evaluation_id)
                stored = session.get(Evaluation, evaluation_id)
                assert stored is not None
                stored.summary, figures = reports[profile]
                session.add(stored)
                ev_store.save_board_figures(
                    session=session,
                    evaluation_id=evaluation_id,
                    benchmark_version=stored.benchmark_version,
                    finished_at=stored.finished_at or utcnow(),
                    figures=figures,
                )
                session.commit()
        ids.append(evaluation_id)
    return ids


async def client(
    base: str,
    number: int,
    countries: list[str],
    until: float,
    warm_until: float,
    samples: dict[str, list[float]],
    codes: Counter[str],
    marks: dict[str, float],
) -> None:
    """Once a second from a random phase, the next kind in turn; revalidating with the last ETag per URL."""
    etags: dict[str, str] = {}
    rng = random.Random(number)
    connector = aiohttp.TCPConnector(limit=1)
    async with aiohttp.ClientSession(
        base, connector=connector, timeout=aiohttp.ClientTimeout(total=30)
    ) as http:
        await asyncio.sleep(rng.random())
        tick, turn = time.monotonic(), number
        while tick < until:
            kind = KINDS[turn % len(KINDS)]
            turn += 1
            path = {
                "json": "/v1/leaderboard",
                "page": "/",
                "page_country": f"/?country={rng.choice(countries)}",
            }[kind]
            headers = {"If-None-Match": etags[path]} if path in etags else {}
            started = time.perf_counter()
            try:
                async with http.get(path, headers=headers) as response:
                    await response.read()
                    status = response.status
                    if "ETag" in response.headers:
                        etags[path] = response.headers["ETag"]
            except (aiohttp.ClientError, TimeoutError) as exc:
                codes[f"{kind} {type(exc).__name__}"] += 1
                status = None
            elapsed_ms = (time.perf_counter() - started) * 1000
            if status is not None:
                codes[f"{kind} {status}"] += 1  # warm-up included: failures count whenever they happen
                if kind == "json" and status == 200 and "changed" in marks and "seen" not in marks:
                    marks["seen"] = time.monotonic()  # a client got the changed JSON board
                if time.monotonic() >= warm_until:
                    samples[kind].append(elapsed_ms)
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


def finish_one_more(var: str, data: str) -> str:
    """One more public evaluation finished in the store (run in a process of its own, awaited without blocking:
    the report it computes would otherwise hold the clients' event loop, and the latency they measure)."""
    settings = Settings(var_dir=Path(var), database_url=None, redis_url=None, data_dir=Path(data))
    deps = build_runtime(settings)
    (added,) = seed_board(deps, 1, seed=1)
    deps.engine.dispose()
    return added


async def poll(
    base: str, clients: int, countries: list[str], seconds: float, warmup: float, var: Path, data: Path
) -> tuple[dict[str, list[float]], Counter[str]]:
    samples: dict[str, list[float]] = {k: [] for k in KINDS}
    codes: Counter[str] = Counter()
    marks: dict[str, float] = {}
    now = time.monotonic()

    async def change_half_way() -> None:
        await asyncio.sleep(warmup + seconds / 2)
        code = f"from bench.board import finish_one_more; finish_one_more({str(var)!r}, {str(data)!r})"
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", code)
        if await proc.wait() == 0:
            marks["changed"] = time.monotonic()
        else:  # the server's reconciler took the half-seeded evaluation and ran it against no target
            note("the half-way evaluation did not settle as succeeded: the board did not change")

    await asyncio.gather(
        change_half_way(),
        *(
            client(base, n, countries, now + warmup + seconds, now + warmup, samples, codes, marks)
            for n in range(clients)
        ),
    )
    if "seen" in marks:
        codes["change seen after (ms)"] = round(1000 * (marks["seen"] - marks["changed"]))
    return samples, codes


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (Linux /proc): what a request costs whatever the machine's load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cold(base: str, path: str) -> tuple[float, httpx.Response]:
    """One request's time on a board not yet computed (the first after a start or a change), and its answer."""
    started = time.perf_counter()
    response = httpx.get(base + path, timeout=120)
    response.raise_for_status()
    return round((time.perf_counter() - started) * 1000, 1), response


def check_served(board: httpx.Response, page: httpx.Response, evaluations: int) -> None:
    """Figures of an empty or broken board would mean nothing: the whole board must be there."""
    total = board.json()["total"]
    if total != evaluations or 'href="/evaluations/' not in page.text:
        raise SystemExit(f"the served board has {total} entries, not the {evaluations} seeded")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument(
        "--profiles", type=int, default=100, help="Distinct sets of verdicts among the evaluations."
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the server below is stopped on `timeout`

    var = Path(tempfile.mkdtemp(prefix="helmbench-board-"))
    data = board_library(var)
    settings = Settings(var_dir=var, database_url=None, redis_url=None, data_dir=data)
    upgrade(settings)
    deps = build_runtime(settings)
    started = time.perf_counter()
    seed_board(deps, args.evaluations, profiles=args.profiles)
    seed_s = time.perf_counter() - started
    note(f"seeded {args.evaluations} public evaluations in {seed_s:.1f} s (load {os.getloadavg()[0]:.1f})")
    countries = sorted(deps.library.countries)

    port = free_port()
    env = {
        **os.environ,
        "HELMBENCH_VAR_DIR": str(var),
        "HELMBENCH_DATA_DIR": str(data),
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
        "HELMBENCH_LOG_LEVEL": "warning",
    }
    server = subprocess.Popen(
        [HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/healthz", timeout=120)
        (json_ms, board), (page_ms, page), (country_ms, _) = (
            cold(base, "/v1/leaderboard"),
            cold(base, "/"),
            cold(base, "/?country=US"),
        )
        check_served(board, page, args.evaluations)
        first = {"json": json_ms, "page": page_ms, "page_country": country_ms}
        note(f"first requests (board computed): {first}")
        note(f"{args.clients} clients polling for {args.seconds:g} s after {args.warmup:g} s of warm-up")
        cpu_before = cpu_seconds(server.pid)
        samples, codes = asyncio.run(
            poll(base, args.clients, countries, args.seconds, args.warmup, var, data)
        )
        server_cpu_s = cpu_seconds(server.pid) - cpu_before
        load = os.getloadavg()
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(var, ignore_errors=True)
    seen_ms = codes.pop("change seen after (ms)", None)
    failures = {k: v for k, v in codes.items() if not k.endswith((" 200", " 304"))}
    figures = {k: summary(samples[k]) for k in KINDS}
    met = not failures and all(samples[k] and percentile(samples[k], 99) < GOALS_MS[k] for k in KINDS)
    for k in KINDS:
        f = figures[k]
        note(
            f"{k:<13} n={f.get('n', 0):<5} p50 {f.get('p50_ms', 0):7.1f} ms  p99 {f.get('p99_ms', 0):7.1f} ms  "
            f"max {f.get('max_ms', 0):7.1f} ms  (goal p99 < {GOALS_MS[k]:g} ms)"
        )
    requests = sum(codes.values())
    cpu_ms = round(1000 * server_cpu_s / requests, 2) if requests else None
    note(f"server CPU {server_cpu_s:.1f} s for {requests} requests: {cpu_ms} ms a request")
    note(f"a client got the changed JSON board {seen_ms} ms after the change was committed")
    note(
        f"failures {failures or 'none'}; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores"
    )
    result = {
        "evaluations": args.evaluations,
        "clients": args.clients,
        "seconds": args.seconds,
        "seed_s": round(seed_s, 1),
        "first_request_ms": first,
        **figures,
        "responses": dict(sorted(codes.items())),
        "failures": failures,
        "change_seen_after_ms": seen_ms,
        "server_cpu_ms_per_request": cpu_ms,
        "goals_p99_ms": GOALS_MS,
        "met": met,
        "load_average": [round(x, 2) for x in load],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
