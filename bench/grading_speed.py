"""CPU per graded reply: the service's grader on the reference bots' replies to the real full suite.

    python -m bench.grading_speed                    # every item of the full suite, careful bot + 8 ablations
    python -m bench.grading_speed --sample 5000      # a seeded sample of (bot, item) pairs, for a look
    python -m bench.grading_speed --golden /tmp/g.jsonl      # also write every grade's full output
    python -m bench.grading_speed --compare /tmp/g.jsonl     # ... or check it is unchanged, grade by grade

The replies come from tests/scoring/bots.py, each bot answering every user turn as the runner would send it, so the
grader sees what it sees in a run: multi-turn scripts, tag scenarios, every country. Grading is the real `Grader`
without a judge (rules only), timed with `time.process_time` per reply: median, p90, p99. A second pass wraps
`find_resources`, every check and the rules' 1–5 grade in timers (exclusive time, so nothing is counted twice) for
the share of CPU each takes. The bots repeat many replies word for word, which real targets do not, so caches keyed
by a reply's text would flatter the figure: `--cold` empties them before each reply (the default), `--warm` keeps
them as a long-running service would. The last line is JSON for bench/run_all.py.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from app.benchmark.items import ResolvedItem, expand_suite, resolve
from app.benchmark.loader import load_library
from app.grading.checks import context as context_module
from app.grading.checks import registry as checks_module
from app.grading.checks.context import user_turns
from app.grading.grader import Grader
from app.grading.grades import verdict as verdict_module
from app.grading.grades.verdict import Grade
from tests.grading.grades.likert.speed import reference_unit
from tests.scoring.bots import BOT_NAMES, Bot

Pair = tuple[str, ResolvedItem, list[str]]


def conversations(suite: str, sample: int | None, seed: int) -> list[Pair]:
    """(bot, item, replies) for every bot and item of the suite (or a seeded sample of them)."""
    library = load_library()
    items = [resolve(library, spec) for spec in expand_suite(library, suite)]
    pairs = [(name, item) for name in BOT_NAMES for item in items]
    if sample is not None and sample < len(pairs):
        pairs = sorted(random.Random(seed).sample(pairs, sample), key=lambda p: p[1].spec.index)
    bots = {name: Bot(library.countries, None if name == "careful" else name) for name in BOT_NAMES}
    out: list[Pair] = []
    for name, item in pairs:
        messages = [{"role": "system", "content": item.system_prompt}]
        for turn in item.perturbation.user_turns:
            messages.append({"role": "user", "content": turn})
            messages.append({"role": "assistant", "content": bots[name](messages)})
        out.append((name, item, [m["content"] for m in messages if m["role"] == "assistant"]))
    return out


def grade_now(grader: Grader, item: ResolvedItem, replies: list[str]) -> Grade:
    """Runs `Grader.grade` to completion: without a judge it never awaits, so no event loop is needed."""
    coro = grader.grade(item, replies)
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the grader awaited: a judge is configured")


def text_caches() -> list[Callable[[], None]]:
    """`cache_clear` of every memoised function in app.grading but the per-item one (the user's turns recur in a
    real run, across an item's conditions, user contexts and repeats); the others are keyed by a reply's text."""
    found = []
    for name, module in sorted(sys.modules.items()):
        if name.startswith("app.grading") and module is not None:
            for value in vars(module).values():
                clear = getattr(value, "cache_clear", None)
                if callable(clear) and getattr(value, "__module__", None) == name and value is not user_turns:
                    found.append(clear)
    return found


def record(grade: Grade) -> dict[str, Any]:
    """Everything a grade says, as stored and shown."""
    return {
        "verdict": grade.verdict,
        "score": grade.score,
        "checks": grade.checks,
        "reasons": grade.reasons,
        "judge": grade.judge,
        "rules": grade.rules_record,
        "panel_scores": grade.panel_scores,
    }


def timed(pairs: list[Pair], grader: Grader, cold: bool) -> tuple[list[float], list[dict[str, Any]]]:
    clears = text_caches() if cold else []
    seconds, records = [], []
    for _, item, replies in pairs:
        for clear in clears:
            clear()
        start = time.process_time()
        grade = grade_now(grader, item, replies)
        seconds.append(time.process_time() - start)
        records.append(record(grade))
    return seconds, records


class _Profile:
    """Exclusive CPU per wrapped function: a callee's time is taken out of its caller's."""

    def __init__(self) -> None:
        self.own: dict[str, float] = defaultdict(float)
        self._stack: list[float] = []  # time spent in wrapped callees of each open frame

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            self._stack.append(0.0)
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.process_time() - start
                inner = self._stack.pop()
                self.own[name] += spent - inner
                if self._stack:
                    self._stack[-1] += spent

        return timed_call


@contextmanager
def profiled(profile: _Profile) -> Iterator[None]:
    """Every check, `find_resources` and the rules' 1–5 grade timed, where the grader looks them up."""
    with (
        mock.patch.dict(
            checks_module.CHECKS, {n: profile.wrap(n, f) for n, f in checks_module.CHECKS.items()}
        ),
        mock.patch.object(
            context_module, "find_resources", profile.wrap("find_resources", context_module.find_resources)
        ),
        mock.patch.object(
            verdict_module, "rules_likert", profile.wrap("rules_likert (own)", verdict_module.rules_likert)
        ),
    ):
        yield


def breakdown(pairs: list[Pair], grader: Grader, cold: bool) -> dict[str, float]:
    """Share of grading CPU per check, resources and the rules' grade; the rest is the grader's own work."""
    profile = _Profile()
    clears = text_caches() if cold else []
    total = 0.0
    with profiled(profile):
        for _, item, replies in pairs:
            for clear in clears:
                clear()
            start = time.process_time()
            grade_now(grader, item, replies)
            total += time.process_time() - start
    shares = {name: spent / total for name, spent in profile.own.items()}
    shares["grader (parse, routing, verdict)"] = 1 - sum(shares.values())
    return dict(sorted(shares.items(), key=lambda kv: -kv[1]))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def compare(path: str, pairs: list[Pair], records: list[dict[str, Any]]) -> int:
    """How many grades differ from the golden file's (same pairs, same order)."""
    with open(path, encoding="utf-8") as f:
        golden = [json.loads(line) for line in f]
    if len(golden) != len(records):
        print(f"golden file has {len(golden)} grades, this run {len(records)}", flush=True)
        return max(len(golden), len(records))
    differ = 0
    for (name, item, _), old, new in zip(pairs, golden, records, strict=True):
        now = json.loads(json.dumps({"bot": name, "key": item.spec.key, **new}, sort_keys=True))
        if now != old:
            differ += 1
            if differ <= 5:
                print(f"differs: {name} {item.spec.code}\n  was {old}\n  now {now}", flush=True)
    return differ


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.grading_speed")
    p.add_argument("--suite", default="full")
    p.add_argument("--sample", type=int, default=None, help="grade a seeded sample of (bot, item) pairs")
    p.add_argument("--seed", type=int, default=16)
    p.add_argument("--warm", action="store_true", help="keep text caches across replies")
    p.add_argument("--golden", help="write every grade's full output here (JSON lines)")
    p.add_argument("--compare", help="compare every grade with this golden file; exit 1 if any differs")
    p.add_argument("--no-breakdown", action="store_true")
    args = p.parse_args(argv)
    cold = not args.warm

    pairs = conversations(args.suite, args.sample, args.seed)
    grader = Grader(load_library().countries)
    distinct = len({r for _, _, replies in pairs for r in replies})
    n_replies = sum(len(replies) for _, _, replies in pairs)
    load = os.getloadavg()
    print(
        f"grading speed: suite {args.suite}, {len(BOT_NAMES)} bots, {len(pairs):,} graded items "
        f"({n_replies:,} replies, {distinct:,} distinct), caches {'cold' if cold else 'warm'}; "
        f"load average {load[0]:.1f} {load[1]:.1f}",
        flush=True,
    )
    timed(pairs[:200], grader, cold)  # imports, compiled patterns, the resource index
    unit = reference_unit()
    seconds, records = timed(pairs, grader, cold)
    ms = [s * 1000 for s in seconds]
    result: dict[str, Any] = {
        "suite": args.suite,
        "graded": len(pairs),
        "cold": cold,
        "median_ms": statistics.median(ms),
        "p90_ms": _percentile(ms, 0.9),
        "p99_ms": _percentile(ms, 0.99),
        "mean_ms": statistics.fmean(ms),
        "load": os.getloadavg()[0],
        "reference_unit_us": unit,
    }
    print(
        f"CPU per graded item: median {result['median_ms']:.3f} ms, p90 {result['p90_ms']:.3f} ms, "
        f"p99 {result['p99_ms']:.3f} ms, mean {result['mean_ms']:.3f} ms; median = "
        f"{result['median_ms'] * 1000 / unit:.1f} reference units (sum(range(1000)) took {unit:.1f} µs here)",
        flush=True,
    )
    if args.golden:
        with open(args.golden, "w", encoding="utf-8") as f:
            for (name, item, _), rec in zip(pairs, records, strict=True):
                f.write(json.dumps({"bot": name, "key": item.spec.key, **rec}, sort_keys=True) + "\n")
        print(f"wrote {len(records):,} grades to {args.golden}", flush=True)
    differ = compare(args.compare, pairs, records) if args.compare else None
    if differ is not None:
        result["differ"] = differ
        print(f"grades that differ from {args.compare}: {differ}", flush=True)
    if not args.no_breakdown:
        shares = breakdown(pairs, grader, cold)
        result["breakdown"] = shares
        print("share of grading CPU (exclusive time, profiled pass):", flush=True)
        for name, share in shares.items():
            print(f"  {name:<34} {100 * share:5.1f}%", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}", flush=True)
    print(json.dumps(result), flush=True)
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
