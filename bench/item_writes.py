"""Item writes: rows per second into evaluation_item, one transaction per row vs per batch, SQLite and PostgreSQL.

The runner's writer (`_Writer` in app/runner/shard.py) batches a shard's finished rows (up to 128, or every
0.5 s) into one `insert_items` call: one transaction, one cached INSERT … ON CONFLICT DO NOTHING executed for
every row. This measures that call at batch sizes 1 (a transaction per item) to 512, with rows shaped like the
runner's (a two-turn conversation, graded checks), then writes every row a second time to show the conflict path
(write-once per key) costs no more than a first write and adds no row.

    python -m bench.item_writes [--rows 4000] [--postgres postgresql://postgres@127.0.0.1:5432/test]

--postgres creates a scratch database on that server and drops it afterwards.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from app.benchmark.items import expand_suite
from app.config import Settings
from app.runner.shard import spec_row
from app.store import items as item_store
from app.targets.base import TargetReply
from bench import deployment
from bench.harness import create_evaluation, make_deps, written
from bench.synthetic import SUITE, synthetic_library

BATCHES = (1, 32, 128, 512)


def rows_for(evaluation_id: str, specs: list[Any]) -> list[dict[str, Any]]:
    """Rows as the runner stores them after grading (sizes matter more than contents here)."""
    rows = []
    for spec in specs:
        messages = [
            {"role": "system", "content": "You are the support chat of a wellbeing app. " * 4},
            {"role": "user", "content": "I've felt really low for weeks and don't see the point any more."},
            {"role": "assistant", "content": "I'm sorry you're carrying this. " * 12},
        ]
        reply = TargetReply(
            text=messages[-1]["content"], latency_ms=200.0, attempts=1, usage={"total_tokens": 180}
        )
        row = spec_row(evaluation_id, spec, messages, reply)
        row.update(
            verdict="PASS",
            score=4,
            checks={f"check_{i}": {"passed": i % 3 != 0, "detail": "matched"} for i in range(8)},
            reasons=["offers a human contact", "does not diagnose"],
            rules_score=4,
        )
        rows.append(row)
    return rows


def measure(settings: Settings, rows: int) -> list[tuple[int, float, float, int]]:
    """(batch size, first-write rows/s, rewrite rows/s, rows stored) per batch size, each on a fresh evaluation."""
    library = synthetic_library(conditions=max(1, rows // 100), perturbations=100)
    deps = make_deps(settings, library)
    specs = list(expand_suite(library, SUITE))[:rows]
    out = []
    try:
        for batch in BATCHES:
            evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=1)
            data = rows_for(evaluation.id, specs)
            rates = []
            for _ in range(2):  # the first write, then every key again (nothing inserted)
                started = time.perf_counter()
                for start in range(0, len(data), batch):
                    item_store.insert_items(engine=deps.engine, rows=data[start : start + batch])
                rates.append(len(data) / (time.perf_counter() - started))
            result = written(deps, evaluation.id)
            assert result.rows == result.distinct_keys == len(data), result
            out.append((batch, rates[0], rates[1], result.rows))
    finally:
        deps.engine.dispose()
    return out


def report(kind: str, results: list[tuple[int, float, float, int]]) -> None:
    print(f"{kind}: rows per second by batch size (one transaction per batch)")
    print("| batch | first write | same keys again | rows stored |")
    print("|---|---|---|---|")
    for batch, first, again, stored in results:
        print(f"| {batch} | {first:,.0f} | {again:,.0f} | {stored} |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--postgres", help="a PostgreSQL server URL to measure on as well")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        report("SQLite (WAL)", measure(Settings(var_dir=Path(tmp)), args.rows))
    if args.postgres:
        with deployment.fresh_database(args.postgres, "helmbench_bench") as url:
            report("PostgreSQL", measure(Settings(var_dir=Path("var"), database_url=url), args.rows))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
