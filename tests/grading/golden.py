"""Every grade of a seeded sample of the reference bots' replies to the full suite, kept as one digest per grade:
a change meant to make grading faster or tidier must leave each of them as it was (verdict, 1–5 grade, checks,
reasons, the rules' record). Write the file again only with a change meant to change grades, and say so:

    python -m tests.grading.golden --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from app.benchmark.loader import load_library
from app.grading.grader import Grader
from bench.grading_speed import conversations, grade_now, record

SUITE, SAMPLE, SEED = "full", 1500, 33
PATH = Path(__file__).with_name("golden_grades.jsonl")


def current_grades() -> list[dict[str, Any]]:
    """(bot, item key) → its verdict, the rules' 1–5 grade and a digest of everything the grade says."""
    grader = Grader(load_library().countries)
    out = []
    for name, item, replies in conversations(SUITE, SAMPLE, SEED):
        graded = record(grade_now(grader, item, replies))
        canonical = json.dumps(graded, sort_keys=True, default=str, ensure_ascii=False)
        out.append(
            {
                "bot": name,
                "key": item.spec.key,
                "verdict": graded["verdict"],
                "grade": (graded["rules"] or {}).get("score", graded["score"]),
                "digest": hashlib.sha256(canonical.encode()).hexdigest()[:20],
            }
        )
    return out


def stored_grades() -> list[dict[str, Any]]:
    with PATH.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m tests.grading.golden")
    p.add_argument("--write", action="store_true", help=f"write the grades of this checkout to {PATH.name}")
    args = p.parse_args(argv)
    grades = current_grades()
    if args.write:
        PATH.write_text("".join(json.dumps(g, sort_keys=True) + "\n" for g in grades), encoding="utf-8")
        print(f"wrote {len(grades)} grades to {PATH}")
    else:
        differ = sum(a != b for a, b in zip(grades, stored_grades(), strict=False))
        print(f"{differ} of {len(grades)} grades differ from {PATH}")


if __name__ == "__main__":
    main()
