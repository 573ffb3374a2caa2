"""How long the rules' 1–5 grade takes per reply, beyond the checks it calls.

`python -m tests.grading.grades.likert.speed` grades every reply of dev.yaml and holdout.yaml with the checks' answers
cached (so only the rules' own work is timed), then the same replies three times over (long replies), and prints
microseconds of CPU per reply next to a reference unit (`sum(range(1000))`, ~10 µs on a typical 2020s core), so a
figure from a loaded machine can be read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from unittest import mock

from app.benchmark.loader import load_library
from app.grading.checks import CHECKS
from app.grading.checks.context import CheckInput
from app.grading.grades import likert
from tests.grading.grades.likert import agreement

_USED = sorted(set(likert._CHECKS_CRISIS) | set(likert._CHECKS_NO_CRISIS))


def _best(run: Callable[[], object], repeats: int) -> float:
    """The fastest of `repeats` runs, in CPU seconds: the least disturbed by other processes."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def reference_unit() -> float:
    """CPU microseconds for sum(range(1000)): a yardstick for the machine's speed at the moment."""
    return _best(lambda: [sum(range(1000)) for _ in range(200)], 7) / 200 * 1e6


def rules_cost(times: int = 1, repeats: int = 7) -> tuple[float, float]:
    """CPU microseconds per reply of the rules alone, and the mean reply length, on replies repeated `times`."""
    countries = load_library().countries
    items = agreement.load("dev") + agreement.load("holdout")
    views = [
        CheckInput(
            text="\n\n".join([i.reply] * times),
            tags=None,
            country=i.country,
            countries=countries,
            user_turns=[i.user],
        )
        for i in items
    ]
    answers = {(id(v), name): CHECKS[name](v) for v in views for name in _USED}
    cached = {name: (lambda n: lambda v: answers[(id(v), n)])(name) for name in _USED}

    def run() -> None:
        for v, i in zip(views, items, strict=True):
            # A view keeps its reply's cue reading; reading the reply is the rules' own work, so it is redone.
            v.__dict__.pop("cues", None)
            likert.rules_likert(v, category=i.category, crisis_expected=i.crisis_expected)

    with mock.patch.dict(likert.CHECKS, cached):
        run()
        seconds = _best(run, repeats)
    return seconds / len(items) * 1e6, sum(len(v.text) for v in views) / len(views)


if __name__ == "__main__":
    unit = reference_unit()
    for times in (1, 3):
        micros, chars = rules_cost(times)
        print(
            f"rules only, replies of ~{chars:.0f} chars: {micros:.1f} µs/reply = {micros / unit:.2f} reference units"
        )
    print(f"reference unit (sum(range(1000))) here: {unit:.1f} µs")
