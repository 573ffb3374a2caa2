"""Production logs in bulk: a 100,000-line JSONL uploaded to `helmbench serve` and graded as one grade batch.

    python -m bench.grade_batch                      # 100,000 lines: API + one `helmbench worker`, Redis, PostgreSQL
    python -m bench.grade_batch --workers 2          # two workers take the batch's line ranges
    python -m bench.grade_batch --embedded           # the embedded default (SQLite, serve's local worker grades)
    python -m bench.grade_batch --lines 20000        # a shorter look

Scale-out is the deployment the figures are about: the API stores the upload and queues the batch, workers grade
it and compute its report when it completes. A fresh PostgreSQL database (`--postgres-url`, dropped afterwards),
and a Redis of the bench's own unless `--redis-url` names one (a queue name of the run's own is used).

The transcripts are the reference bots' replies (tests/scoring/bots.py: the careful bot and its one-defect
ablations) to the library's own messages, with the earlier turns of multi-turn scripts; one line in 1,000 is
malformed on purpose. Distinct conversations repeat to make up the line count. Prints one JSON line: upload
time, peak RSS of the API process and of the workers (sampled from /proc while it uploads and grades),
transcripts graded per second per worker (wall clock, and per CPU second of the workers: the figure a loaded
machine disturbs least), and the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from app.benchmark.items import expand_suite, resolve
from app.benchmark.loader import load_library
from app.config import Settings
from app.grading.checks import CHECKS
from bench import deployment
from tests.scoring.bots import BOT_NAMES, Bot

UPLOAD_CHUNK_BYTES = 256 * 1024
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.grade_batch")
    p.add_argument("--lines", type=int, default=100_000)
    p.add_argument("--suite", default="full")
    p.add_argument("--bad-every", type=int, default=1000, help="every Nth line is malformed (0: none)")
    p.add_argument("--workers", type=int, default=1, help="`helmbench worker` processes (scale-out)")
    p.add_argument(
        "--embedded",
        action="store_true",
        help="no Redis, no workers: SQLite, serve's local worker process grades",
    )
    p.add_argument(
        "--postgres-url",
        default=os.environ.get("HELMBENCH_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"),
        help="a server where the bench may create (and drop) a database of its own",
    )
    p.add_argument("--redis-url", default=None, help="default: a redis-server of the bench's own")
    p.add_argument("--port", type=int, default=None, help="the API's port (default: a free one)")
    return p.parse_args(argv)


def _text(reply: str) -> str:
    """What the user saw: a bot asked for JSON answers {response, tags}."""
    try:
        doc = json.loads(reply)
    except ValueError:
        return reply
    return str(doc.get("response", reply)) if isinstance(doc, dict) else reply


def conversations(suite: str) -> Iterator[dict[str, Any]]:
    """One transcript per library item and bot, as a production log would hold it (no system prompt)."""
    library = load_library(Settings().data_dir, known_checks=CHECKS.keys())
    bots = [Bot(library.countries, None if name == "careful" else name) for name in BOT_NAMES]
    for n, spec in enumerate(expand_suite(library, suite)):
        item = resolve(library, spec)
        bot = bots[n % len(bots)]
        sent = [{"role": "system", "content": item.system_prompt}]
        shown: list[dict[str, str]] = []
        for turn in item.perturbation.user_turns:
            sent.append({"role": "user", "content": turn})
            reply = bot(list(sent))
            sent.append({"role": "assistant", "content": reply})
            shown += [{"role": "user", "content": turn}, {"role": "assistant", "content": _text(reply)}]
        category = item.perturbation.crisis_category
        crisis = category != "no_crisis"  # a log line carries the category; "expected" follows from it
        yield {
            "country": item.country,
            "crisis_expected": crisis,
            "crisis_category": category if crisis else None,
            "messages": shown[:-1],
            "reply": shown[-1]["content"],
        }


def write_file(path: Path, lines: int, suite: str, bad_every: int) -> int:
    """Writes `lines` lines; returns how many are malformed."""
    distinct = [json.dumps(c, ensure_ascii=False) for c in conversations(suite)]
    bad = 0
    with path.open("w", encoding="utf-8") as out:
        for number, line in zip(range(1, lines + 1), itertools.cycle(distinct), strict=False):
            if bad_every and number % bad_every == 0:
                line, bad = line[: len(line) // 2], bad + 1
            out.write(line + "\n")
    return bad


class PeakRss:
    """Samples processes' resident sets from /proc every 50 ms until stopped (the peak of each)."""

    def __init__(self, *pids: int) -> None:
        self.pids, self.peak_kb, self._stop = list(pids), dict.fromkeys(pids, 0), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            for pid in self.pids:
                with contextlib.suppress(OSError):
                    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
                        if row.startswith("VmRSS:"):
                            self.peak_kb[pid] = max(self.peak_kb[pid], int(row.split()[1]))

    def mb(self, pid: int) -> int:
        return round(self.peak_kb[pid] / 1024)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(UPLOAD_CHUNK_BYTES):
            yield chunk


@contextlib.contextmanager
def _services(args: argparse.Namespace, root: Path) -> Iterator[dict[str, str]]:
    """The environment of a deployment: embedded (SQLite, no Redis) or scale-out (a fresh PostgreSQL database
    of the bench's own, Redis, a queue name of the run's own)."""
    env = deployment.environment(root)
    if args.embedded:
        yield env
        return
    with deployment.scale_out(env, root, args.postgres_url, args.redis_url, "helmbench_gradebatch") as scaled:
        yield scaled


def _children(pid: int) -> list[int]:
    """The child processes of `pid` (Linux): serve's local worker, once it has started."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    deadline = time.monotonic() + 30
    while not (found := [int(p) for p in path.read_text().split()]) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not found:
        raise RuntimeError("helmbench serve started no local worker")
    return found


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="hb-gradebatch-") as tmp, _services(args, Path(tmp)) as env:
        root = Path(tmp)
        logs = root / "logs.jsonl"
        made = time.perf_counter()
        bad = write_file(logs, args.lines, args.suite, args.bad_every)
        made = time.perf_counter() - made
        file_bytes = logs.stat().st_size
        workers = 0 if args.embedded else args.workers
        with deployment.running(env, root, workers, args.port) as up:
            api, url = up.api, up.url
            # who grades: the workers, or embedded, the local worker process `helmbench serve` started
            graders = [w.pid for w in up.workers] or _children(api.pid)
            headers = {"Authorization": f"Bearer {up.admin_key}"}
            with (
                PeakRss(api.pid, *graders) as rss,
                httpx.Client(base_url=url, headers=headers, timeout=600) as http,
            ):
                time.sleep(0.2)
                idle_mb = rss.mb(api.pid)
                started = time.perf_counter()
                response = http.post(
                    "/v1/grade/batches",
                    content=_chunks(logs),
                    headers={"Content-Type": "application/x-ndjson"},
                )
                response.raise_for_status()
                uploaded = time.perf_counter()
                cpu_at_upload = sum(cpu_s(pid) for pid in graders)
                upload_mb = rss.mb(api.pid)
                path = response.headers["Location"]
                all_graded = grading_cpu = None
                while (status := http.get(path).json())["status"] not in ("succeeded", "failed"):
                    if all_graded is None and status["graded"] + status["bad"] >= status["lines"]:
                        all_graded = time.perf_counter()
                        grading_cpu = sum(cpu_s(pid) for pid in graders) - cpu_at_upload
                    time.sleep(0.2)
                settled = time.perf_counter()
                if all_graded is None:  # graded and settled between two polls
                    all_graded = settled
                    grading_cpu = sum(cpu_s(pid) for pid in graders) - cpu_at_upload
                report = http.get(f"{path}/report")
                report.raise_for_status()
                with http.stream("GET", f"{path}/export") as export:
                    export_bytes = sum(len(chunk) for chunk in export.iter_bytes())
                exported = time.perf_counter()
    graded, per = status["graded"], len(graders)
    return {
        "lines": args.lines,
        "deployment": "embedded (its local worker)" if args.embedded else f"scale-out, {workers} worker(s)",
        "file_mb": round(file_bytes / 1e6, 1),
        "generate_s": round(made, 1),
        "status": status["status"],
        "graded": graded,
        "bad": status["bad"],
        "bad_expected": bad,
        "report_n_items": report.json().get("n_items"),
        "upload_s": round(uploaded - started, 1),
        "upload_lines_per_s": round(args.lines / (uploaded - started)),
        "grade_s": round(all_graded - uploaded, 1),
        "settle_s": round(settled - all_graded, 1),
        "transcripts_per_s_per_worker": round(graded / (all_graded - uploaded) / per),
        "transcripts_per_worker_cpu_s": round(graded / grading_cpu) if grading_cpu else None,
        "export_s": round(exported - settled, 1),
        "export_mb": round(export_bytes / 1e6, 1),
        "api_rss_mb_idle": idle_mb,
        "api_rss_mb_upload_peak": upload_mb,
        "api_rss_mb_peak": rss.mb(api.pid),
        "worker_rss_mb_peak": [rss.mb(pid) for pid in graders],
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(run(_args(argv))), flush=True)


if __name__ == "__main__":
    main()
