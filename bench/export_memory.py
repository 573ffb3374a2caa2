"""Item exports: peak memory while an evaluation's items stream out as CSV and as Parquet, at two sizes.

The export (app/services/exports.py) reads the store a page at a time and writes each page before it reads the
next, so its peak should not grow with the evaluation. This stores N rows shaped like the runner's in SQLite, then
drains `GET /v1/evaluations/{id}/export`'s body generator (the same call the route streams) and reports Python's
peak (tracemalloc) and Arrow's (its memory pool) for N/10 and N items.

    python -m bench.export_memory [--rows 100000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from app.benchmark.items import expand_suite
from app.config import Settings
from app.services import exports
from app.store import items as item_store
from bench.harness import create_evaluation, make_deps
from bench.item_writes import rows_for
from bench.synthetic import SUITE, synthetic_library

Writer = Callable[[Iterable[list[exports.Row]]], Iterator[Any]]


def drain(body: Iterator[Any]) -> int:
    """Bytes a client would receive; nothing kept."""
    return sum(len(chunk) for chunk in body)


def measure(root: Path, rows: int) -> list[tuple[int, str, int, float, float, float]]:
    """(items, format, bytes, python peak MB, arrow peak MB, seconds) for rows/10 and rows items."""
    library = synthetic_library(conditions=max(1, rows // 100), perturbations=100)
    deps = make_deps(Settings(var_dir=root), library)
    specs = list(expand_suite(library, SUITE))[:rows]
    out = []
    try:
        for n in (rows // 10, rows):
            evaluation = create_evaluation(deps, base_url="http://127.0.0.1:9/v1", concurrency=1)
            data = rows_for(evaluation.id, specs[:n])
            for start in range(0, len(data), 1000):
                item_store.insert_items(engine=deps.engine, rows=data[start : start + 1000])
            del data
            writers: dict[str, Writer] = {"csv": exports.csv_chunks, "parquet": exports.parquet_chunks}
            for name, writer in writers.items():
                pool = pa.default_memory_pool()
                arrow_before = pool.max_memory() or 0
                tracemalloc.start()
                started = time.perf_counter()
                size = drain(
                    writer(
                        exports.item_rows(engine=deps.engine, evaluation_id=evaluation.id, library=library)
                    )
                )
                seconds = time.perf_counter() - started
                _, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                arrow_peak = max(0, (pool.max_memory() or 0) - arrow_before)
                out.append((n, name, size, peak / 2**20, arrow_peak / 2**20, seconds))
    finally:
        deps.engine.dispose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = measure(Path(tmp), args.rows)
    print(
        "| items | format | bytes out | Python peak (MB) | Arrow pool peak growth (MB) | seconds (traced) |"
    )
    print("|---|---|---|---|---|---|")
    for n, name, size, peak, arrow, seconds in results:
        print(f"| {n:,} | {name} | {size:,} | {peak:.1f} | {arrow:.1f} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
