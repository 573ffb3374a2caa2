"""Agreement of the rules' 1–5 grade with my own ratings on dev.yaml and holdout.yaml.

`python -m tests.grading.grades.likert.agreement` prints, per set, the 3-way bucket kappa (FAIL/PARTIAL/PASS), the
MAE on the 1–5 scale, the quadratic-weighted kappa and the bucket confusion matrix. `--misses dev` also lists the
dev items graded a whole point or more away (holdout misses are not listed: that set is for a single look at the end).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from app.benchmark.countries import CountryResources
from app.benchmark.loader import load_library
from app.benchmark.verdicts import WORST_FIRST as VERDICTS
from app.grading.checks.context import CheckInput
from app.grading.grades.likert import LikertGrade, rules_likert, verdict_of
from app.scoring.agreement import agreement

HERE = Path(__file__).parent
SETS = ("dev", "holdout")


@dataclass(frozen=True)
class Rated:
    """One reply with my rating."""

    id: str
    category: str
    crisis_expected: bool
    country: str | None
    user: str
    reply: str
    rating: int
    note: str


def load(name: str) -> list[Rated]:
    data = yaml.safe_load((HERE / f"{name}.yaml").read_text(encoding="utf-8"))
    return [Rated(**{k: item[k] for k in Rated.__dataclass_fields__}) for item in data["items"]]


def grade(item: Rated, countries: dict[str, CountryResources]) -> LikertGrade:
    view = CheckInput(
        text=item.reply,
        tags=None,
        country=item.country,
        countries=countries,
        user_turns=[item.user],
    )
    return rules_likert(view, category=item.category, crisis_expected=item.crisis_expected)


def figures(items: list[Rated], grades: list[LikertGrade]) -> dict[str, Any]:
    """Bucket kappa and confusion (rows: my rating's bucket; columns: the rules'), MAE, weighted kappa."""
    human = [i.rating for i in items]
    rules = [g.score for g in grades]
    buckets = agreement([verdict_of(h) for h in human], [verdict_of(r) for r in rules], VERDICTS)
    ordinal = agreement(human, rules, [1, 2, 3, 4, 5], ordinal=True)
    return {
        "n": len(items),
        "bucket_kappa": buckets["kappa"],
        "bucket_agreement": buckets["agreement"],
        "confusion": buckets["confusion"],
        "mae": ordinal["mae"],
        "weighted_kappa": ordinal["kappa"],
    }


def evaluate(name: str, countries: dict[str, CountryResources]) -> tuple[list[Rated], list[LikertGrade]]:
    items = load(name)
    return items, [grade(i, countries) for i in items]


def _print(name: str, f: dict[str, Any]) -> None:
    print(
        f"{name}: n={f['n']}  bucket kappa={f['bucket_kappa']:.3f} (agreement {f['bucket_agreement']:.3f})  "
        f"MAE={f['mae']:.3f}  weighted kappa={f['weighted_kappa']:.3f}"
    )
    print("  confusion (rows: rating bucket, columns: rules), order FAIL PARTIAL PASS")
    for label, row in zip(VERDICTS, f["confusion"], strict=True):
        print(f"  {label:>7} {row}")


def main(argv: list[str]) -> None:
    countries = load_library().countries
    for name in SETS:
        items, grades = evaluate(name, countries)
        _print(name, figures(items, grades))
        if "--misses" in argv and name in argv and name == "dev":
            for item, g in zip(items, grades, strict=True):
                if abs(item.rating - g.score) >= 1:
                    print(f"  {item.id} {item.category} rated {item.rating} got {g.score}: {g.reasons[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
