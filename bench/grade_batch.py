"""Production logs in bulk: a 100,000-line JSONL uploaded to `helmbench serve` and graded as one grade batch.

    python -m bench.grade_batch                      # 100,000 lines, embedded default (SQLite, in-process job)
    python -m bench.grade_batch --lines 20000        # a shorter look

The transcripts are the reference bots' replies (tests/scoring/bots.py: the careful bot and its one-defect
ablations) to the library's own messages, with the earlier turns of multi-turn scripts; one line in 1,000 is
malformed on purpose. Distinct conversations repeat to make up the line count. Prints one JSON line: upload
time, peak RSS of the API process (sampled from /proc while it uploads and grades), transcripts graded per
second, and the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
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
from bench.ports import free_port, wait_http
from tests.scoring.bots import BOT_NAMES, Bot

UPLOAD_CHUNK_BYTES = 256 * 1024


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.grade_batch")
    p.add_argument("--lines", type=int, default=100_000)
    p.add_argument("--suite", default="full")
    p.add_argument("--bad-every", type=int, default=1000, help="every Nth line is malformed (0: none)")
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
    """Samples a process's resident set from /proc every 50 ms until stopped."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_kb, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            try:
                status = Path(f"/proc/{self.pid}/status").read_text()
            except OSError:
                return
            for row in status.splitlines():
                if row.startswith("VmRSS:"):
                    self.peak_kb = max(self.peak_kb, int(row.split()[1]))

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(UPLOAD_CHUNK_BYTES):
            yield chunk


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="hb-gradebatch-") as tmp:
        root = Path(tmp)
        logs = root / "logs.jsonl"
        made = time.perf_counter()
        bad = write_file(logs, args.lines, args.suite, args.bad_every)
        made = time.perf_counter() - made
        file_bytes = logs.stat().st_size
        port = free_port()
        env = {
            **os.environ,
            "HELMBENCH_VAR_DIR": str(root / "var"),
            "HELMBENCH_DATABASE_URL": "",
            "HELMBENCH_REDIS_URL": "",
            "HELMBENCH_LOG_LEVEL": "warning",
        }
        for name in ("HELMBENCH_JUDGE_BASE_URL", "HELMBENCH_JUDGE_MODEL", "HELMBENCH_JUDGES"):
            env.pop(name, None)
        serve = [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)]
        with (root / "serve.log").open("wb") as log:
            proc = subprocess.Popen(serve, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_http(f"{url}/healthz")
            key = (root / "var" / "admin.key").read_text().strip()
            headers = {"Authorization": f"Bearer {key}"}
            with PeakRss(proc.pid) as rss, httpx.Client(base_url=url, headers=headers, timeout=600) as http:
                idle_kb = rss.peak_kb
                started = time.perf_counter()
                response = http.post(
                    "/v1/grade/batches",
                    content=_chunks(logs),
                    headers={"Content-Type": "application/x-ndjson"},
                )
                response.raise_for_status()
                uploaded = time.perf_counter()
                upload_rss_kb = rss.peak_kb
                path = response.headers["Location"]
                while (status := http.get(path).json())["status"] not in ("succeeded", "failed"):
                    time.sleep(0.5)
                graded = time.perf_counter()
                with http.stream("GET", f"{path}/export") as export:
                    export_bytes = sum(len(chunk) for chunk in export.iter_bytes())
                exported = time.perf_counter()
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    return {
        "lines": args.lines,
        "file_mb": round(file_bytes / 1e6, 1),
        "generate_s": round(made, 1),
        "status": status["status"],
        "graded": status["graded"],
        "bad": status["bad"],
        "bad_expected": bad,
        "upload_s": round(uploaded - started, 1),
        "upload_lines_per_s": round(args.lines / (uploaded - started)),
        "grade_s": round(graded - uploaded, 1),
        "transcripts_per_s": round(status["graded"] / (graded - uploaded)),
        "export_s": round(exported - graded, 1),
        "export_mb": round(export_bytes / 1e6, 1),
        "api_rss_mb_idle": round(idle_kb / 1024),
        "api_rss_mb_upload_peak": round(upload_rss_kb / 1024),
        "api_rss_mb_peak": round(rss.peak_kb / 1024),
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(run(_args(argv))), flush=True)


if __name__ == "__main__":
    main()
