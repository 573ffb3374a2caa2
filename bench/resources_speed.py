"""CPU per `find_resources` call over realistic replies, and (with --against REV) equality with an older version.

Replies: every text of the paraphrase batteries (tests/grading/checks/paraphrases), each read for its own country and
for a spread of others (a reply meant for one country is graded for users everywhere). The index is built
before timing; each call is timed with the process CPU clock.

    python -m bench.resources_speed                 # median and p99 CPU per call
    python -m bench.resources_speed --against REV     # also: REV's CPU, and the same findings as REV's
                                                      # app/grading/checks/resources.py on the data without superseded
                                                      # numbers (which an older version does not know)
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from app.benchmark.loader import load_library
from app.grading.checks import resources
from tests.grading.checks.paraphrases.battery import batteries, load

ROOT = Path(__file__).resolve().parents[1]
SPREAD = (None, "AU", "US", "GB", "IE", "NZ", "JP", "DE", "BR", "IN", "SG", "ZA")


def cases() -> list[tuple[str, str | None, tuple[str, ...]]]:
    """(reply, country, user turns) for every battery text, read for its own country and for SPREAD."""
    out: list[tuple[str, str | None, tuple[str, ...]]] = []
    for check in batteries():
        for case in load(check):
            for country in dict.fromkeys((case.country, *SPREAD)):
                out.append((case.text, country, case.user))
    return out


# Where the module stood: it moved into app/grading/checks/, and REV may be from before the move.
_PATHS = ("app/grading/checks/resources.py", "app/grading/resources.py")


def _module_at(rev: str):
    """app/grading/checks/resources.py as it was at rev, imported under another name."""
    for where in _PATHS:
        shown = subprocess.run(["git", "show", f"{rev}:{where}"], cwd=ROOT, capture_output=True, text=True)
        if shown.returncode == 0:
            source = shown.stdout
            break
    else:
        raise SystemExit(f"{rev} has no resources module at {' or '.join(_PATHS)}")
    path = Path(tempfile.mkdtemp()) / "resources_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("resources_before", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["resources_before"] = module
    spec.loader.exec_module(module)
    return module


def _comparable(findings: object) -> dict:
    """The findings both versions report, matches as (country, name, digits)."""
    data = asdict(findings)  # type: ignore[call-overload]
    out = {}
    for key in ("local", "foreign", "unknown_numbers", "unverified_local"):
        out[key] = [(m["country"], m["name"], m["number"]) if isinstance(m, dict) else m for m in data[key]]
    return out


def _cpu_per_call(module, countries, replies, rounds: int) -> list[int]:
    module.find_resources("warm-up", "AU", countries)  # builds the index outside the timing
    timings: list[int] = []
    for _ in range(rounds):
        for text, country, user in replies:
            start = time.process_time_ns()
            module.find_resources(text, country, countries, user_turns=user)
            timings.append(time.process_time_ns() - start)
    return sorted(timings)


def _summary(label: str, timings: list[int]) -> str:
    p99 = timings[int(len(timings) * 0.99)]
    return (
        f"{label}: CPU per call median {statistics.median(timings) / 1000:.0f} us, p99 {p99 / 1000:.0f} us, "
        f"mean {statistics.fmean(timings) / 1000:.0f} us"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", help="a git revision to time and to compare findings with")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    countries = load_library().countries
    replies = cases()
    print(
        f"{len(replies)} replies x {args.rounds} rounds, {len(countries)} countries; load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(_summary("now", _cpu_per_call(resources, countries, replies, args.rounds)))
    if not args.against:
        return
    before = _module_at(args.against)
    print(_summary(args.against, _cpu_per_call(before, countries, replies, args.rounds)))
    # An older version knows no superseded numbers: compare on the data without them, where both must agree.
    plain = {code: res.model_copy(update={"superseded": []}) for code, res in countries.items()}
    differ = 0
    for text, country, user in replies:
        new = _comparable(resources.find_resources(text, country, plain, user_turns=user))
        old = _comparable(before.find_resources(text, country, plain, user_turns=user))
        if new != old:
            differ += 1
            if differ <= 5:
                print(f"DIFFERS for {country}: {text[:100]!r}\n  before {old}\n  after  {new}")
    print(
        f"equality against {args.against}: {len(replies) - differ}/{len(replies)} replies give the same findings"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")
    if differ:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
