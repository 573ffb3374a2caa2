"""CPU of one grade batch job (`run_grade_batch`) alone: the grader's share and what the batch path costs around it.

    python -m bench.grade_batch_job                              # 10,000 lines (one shard), SQLite
    python -m bench.grade_batch_job --postgres-url postgresql://postgres@127.0.0.1:5432/test
    python -m bench.grade_batch_job --profile /tmp/job.prof      # also a cProfile of the job

The lines are bench/grade_batch.py's (the reference bots' replies to the full suite's messages), stored as the
upload stores them. The grader alone grades the same transcripts first (which also warms what a process pays
once), then the job grades one shard in this process; both timed with `time.process_time` (this process's CPU,
its database threads included: on a loaded machine the steadier figure). So `grader_share` is the part of the
job's CPU the grader takes and `rest_cpu_ms_per_line` what reading, validating, building results and writing
cost (the report the job computes at the end is timed apart). The database's own CPU (PostgreSQL's server process)
is not in this figure; SQLite's is. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import itertools
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlmodel import Session

from app.config import Settings
from app.grading.grader import Grader
from app.grading.transcript import Transcript
from app.runner.grade_batch import run_grade_batch
from app.runner.runtime import build_runtime
from app.scoring.grade_batch import compute_summary
from app.services.grade_batches import line_row
from app.store import grade_batches as store
from app.store.keys import create_team
from app.store.migrate import upgrade
from bench import deployment
from bench.grade_batch import conversations


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.grade_batch_job")
    p.add_argument("--lines", type=int, default=10_000, help="lines in the batch (one shard: 10,000)")
    p.add_argument("--suite", default="full")
    p.add_argument("--postgres-url", default=None, help="a server where the bench may create a database")
    p.add_argument("--profile", type=Path, default=None, help="write the job's cProfile stats here")
    return p.parse_args(argv)


@contextlib.contextmanager
def _database(postgres_url: str | None) -> Iterator[str | None]:
    if postgres_url is None:
        yield None
        return
    with deployment.fresh_database(postgres_url, "helmbench_gradejob") as url:
        yield url


def _store_batch(settings: Settings, engine: Any, texts: list[str]) -> str:
    with Session(engine) as session:
        team = create_team(session=session, name="bench")
        batch_id = store.create_batch(session=session, team_id=team.id).id
        session.commit()
    for start in range(0, len(texts), settings.grade_batch_chunk_lines):
        rows = [
            row
            for n, text in enumerate(texts[start : start + settings.grade_batch_chunk_lines], start + 1)
            if (row := line_row(n, text.encode(), settings.max_body_bytes)) is not None
        ]
        with Session(engine) as session:
            store.add_lines(session=session, batch_id=batch_id, rows=rows, last_line=start + len(rows))
            session.commit()
    with Session(engine) as session:
        store.mark_queued(session=session, batch_id=batch_id)
        session.commit()
    return batch_id


async def _grader_alone(settings: Settings, library: Any, texts: list[str]) -> float:
    transcripts = [Transcript.model_validate_json(t) for t in texts]
    async with Grader.with_judges(library.countries, [], max_reply_bytes=settings.max_reply_bytes) as grader:
        started = time.process_time()
        for transcript in transcripts:
            await grader.grade_transcript(transcript)
        return time.process_time() - started


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = os.getloadavg()
    distinct = [json.dumps(c, ensure_ascii=False) for c in conversations(args.suite)]
    texts = list(itertools.islice(itertools.cycle(distinct), args.lines))
    with tempfile.TemporaryDirectory(prefix="hb-gradejob-") as tmp, _database(args.postgres_url) as url:
        settings = Settings(
            var_dir=Path(tmp),
            database_url=url,
            redis_url=None,
            judge_base_url=None,
            grade_batch_shard_lines=max(args.lines, 1),
        )
        upgrade(settings)
        deps = build_runtime(settings)
        try:
            batch_id = _store_batch(settings, deps.engine, texts)
            # First, so what a grader does once per process (lazy imports, phone metadata) is not charged to
            # the job: a worker grading 100,000 lines pays it once.
            grader_cpu = asyncio.run(_grader_alone(settings, deps.library, texts))
            profile = cProfile.Profile() if args.profile else None
            started = time.process_time()
            if profile:
                profile.enable()
            outcome = asyncio.run(run_grade_batch(deps, batch_id, 0))
            if profile:
                profile.disable()
                profile.dump_stats(args.profile)
            job_cpu = time.process_time() - started
            with Session(deps.engine) as session:
                batch = store.get_batch(session=session, team_id=None, batch_id=batch_id)
                assert batch is not None
                graded, status = batch.graded, batch.status
            started = time.process_time()
            compute_summary(deps.engine, batch_id)
            report_cpu = time.process_time() - started
        finally:
            deps.engine.dispose()
    grading_cpu = job_cpu - report_cpu  # the job computes the report once its shard completes the batch
    return {
        "lines": args.lines,
        "database": "postgresql" if args.postgres_url else "sqlite",
        "outcome": outcome,
        "status": status,
        "graded": graded,
        "job_cpu_s": round(job_cpu, 2),
        "report_cpu_s": round(report_cpu, 2),
        "transcripts_per_job_cpu_s": round(graded / grading_cpu),
        "grader_cpu_s": round(grader_cpu, 2),
        "transcripts_per_grader_cpu_s": round(graded / grader_cpu),
        "grader_share": round(grader_cpu / grading_cpu, 3),
        "rest_cpu_ms_per_line": round((grading_cpu - grader_cpu) / graded * 1000, 3),
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(run(_args(argv))), flush=True)


if __name__ == "__main__":
    main()
