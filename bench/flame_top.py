"""Top frames of a py-spy collapsed-stack file (`py-spy record --format raw`, as `bench/api_e2e.py --profile`
writes): the share of samples each function is on the stack (inclusive) and at the top of it (exclusive).

    python -m bench.flame_top /tmp/prof/worker-1w-0.txt [--top 40] [--match app/]
    python -m bench.flame_top /tmp/prof/worker-1w-0.txt --parts     # a worker's samples by part of its work

Text, so a profile's summary can go in bench/README.md beside its figures.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

# Top frames of a thread that waits, not works: a thread pool's idle threads, psycopg waiting for the server, the
# event loop in select (uvloop's C code under arq's run); py-spy does not always see these threads as idle.
WAITING = frozenset(
    {
        "concurrent/futures/thread.py:_worker",
        "psycopg/connection.py:Connection.wait",
        "arq/worker.py:Worker.run",
        "threading.py:Condition.wait",
        "threading.py:Event.wait",
    }
)
# A worker's work in parts: a sample counts for the first part one of whose markers is in one of its frames' names
# (so grading inside the end-of-run report counts as the report); what none claims is the event loop's own work
# and whatever else is left.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the end-of-run report", ("finish_evaluation", "compute_report")),
    ("grading (Grader.grade)", ("Grader.grade",)),
    ("item writes (insert_items)", ("insert_items",)),
    ("other database", ("app/store/", "sqlalchemy/", "psycopg/")),
    ("Redis and the shared target gate", ("shared_target_gate", "redis/")),
    ("target call (app/targets, app/net, aiohttp)", ("app/targets/", "app/net/", "aiohttp/")),
    ("runner (app/runner, app/kinds)", ("app/runner/", "app/kinds/")),
)
FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^()]*?)(?::\d+)?\)$")


def frame_name(frame: str) -> str:
    """`func (path/to/file.py:12)` as `file.py:func`, the line dropped so one function is one row."""
    match = FRAME.match(frame)
    if not match:
        return frame
    path = match["file"]
    for marker in ("site-packages/", "/app/", "/bench/", "/lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            if marker == "/app/":
                path = "app/" + path
            break
    return f"{path}:{match['func']}"


def tally(
    lines: list[str], keep_waiting: bool = False
) -> tuple[Counter[str], Counter[str], int, Counter[str]]:
    """Samples on the stack and at its top per function, the samples counted, and the samples per part (PARTS)."""
    inclusive: Counter[str] = Counter()
    exclusive: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    total = 0
    for line in lines:
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [frame_name(f) for f in stack.split(";")]
        if frames and frames[0].startswith("process "):
            frames = frames[1:]
        if frames and frames[0].startswith("thread "):
            frames = frames[1:]
        if not frames or (not keep_waiting and frames[-1] in WAITING):
            continue
        total += n
        for name in set(frames):
            inclusive[name] += n
        exclusive[frames[-1]] += n
        parts[_part(frames)] += n
    return inclusive, exclusive, total, parts


def _part(frames: list[str]) -> str:
    for part, markers in PARTS:
        if any(marker in frame for frame in frames for marker in markers):
            return part
    return "the event loop and the rest"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.flame_top", description=__doc__.splitlines()[0])
    parser.add_argument("stacks", type=Path)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--match", default="", help="inclusive rows only for frames whose name contains this")
    parser.add_argument("--keep-waiting", action="store_true", help="count samples of waiting threads too")
    parser.add_argument("--parts", action="store_true", help="only the share of each part of a worker's work")
    args = parser.parse_args(argv)
    inclusive, exclusive, total, parts = tally(args.stacks.read_text().splitlines(), args.keep_waiting)
    print(f"{total} samples{'' if args.keep_waiting else ' (threads that wait left out)'}")
    if args.parts:
        for part, n in parts.most_common():
            print(f"  {100 * n / total:5.1f}%  {part}")
        return
    print("inclusive (on the stack):")
    shown = [(k, v) for k, v in inclusive.most_common() if args.match in k][: args.top]
    for name, n in shown:
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("exclusive (at the top):")
    for name, n in exclusive.most_common(args.top):
        print(f"  {100 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
