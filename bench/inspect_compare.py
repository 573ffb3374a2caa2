"""The same mock, the same item count and concurrency, run by inspect-ai (if installed) for comparison.

    python -m bench.inspect_compare --concurrency 64 --items 3000 --mock-url http://127.0.0.1:PORT

inspect-ai is the `bench` extra (pinned 0.3.285), installed by `make bench`; without it the row says why.
Its scorer here is a trivial `includes()`, lighter than our grading; its log goes to a temp dir.
Prints one JSON line (or {"skipped": reason}).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time


def run(base_url: str, items: int, concurrency: int) -> dict[str, object]:
    try:
        from inspect_ai import Task, eval
        from inspect_ai.dataset import Sample
        from inspect_ai.scorer import includes
        from inspect_ai.solver import generate, system_message
    except ImportError as exc:
        return {
            "skipped": f"inspect-ai is not installed ({exc.name}); make bench installs it (the bench extra)"
        }
    # openai-api/<service>/<model>: inspect's generic OpenAI-compatible provider (chat completions)
    os.environ.update(MOCK_API_KEY="mock-key", MOCK_BASE_URL=base_url + "/v1")
    samples = [
        Sample(input=f"I've been feeling really low for weeks ({i}).", target="alone", id=i)
        for i in range(items)
    ]
    task = Task(
        dataset=samples,
        solver=[system_message("You are the support chat of a wellbeing app."), generate()],
        scorer=includes(),
    )
    with tempfile.TemporaryDirectory(prefix="helmbench-inspect-") as logs:
        started = time.perf_counter()
        log = eval(
            task,
            model="openai-api/mock/mock-model",
            max_connections=concurrency,
            max_samples=concurrency,
            display="none",
            log_dir=logs,
            max_retries=4,
            timeout=30,
        )[0]
        seconds = time.perf_counter() - started
        done = sum(1 for s in (log.samples or []) if s.error is None)
        error = str(log.error.message)[:300] if log.error else None
    return {
        "tool": f"inspect-ai {__import__('inspect_ai').__version__}",
        "concurrency": concurrency,
        "items": items,
        "ok": done,
        "status": log.status,
        "error": error,
        "seconds": round(seconds, 2),
        "items_per_s": round(items / seconds, 1),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.inspect_compare")
    p.add_argument("--mock-url", required=True)
    p.add_argument("--items", type=int, default=3000)
    p.add_argument("--concurrency", type=int, default=64)
    args = p.parse_args(argv)
    try:
        out = run(args.mock_url, args.items, args.concurrency)
    except Exception as exc:  # report why, the comparison is optional
        out = {"skipped": f"inspect-ai failed: {type(exc).__name__}: {str(exc)[:300]}"}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
