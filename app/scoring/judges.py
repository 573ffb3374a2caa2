"""How far the judges can be trusted: a panel's agreement with itself, the items it splits on, and how the
rules' own 1–5 grade agrees with the judges'.

Krippendorff's α comes from the `krippendorff` package: unlike Cohen's κ it takes any number of judges and a
missing rating (a judge with no usable answer) as they come, and its ordinal metric fits the 1–5 scale.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import krippendorff
import numpy as np

from app.benchmark.verdicts import WORST_FIRST
from app.grading.grades.likert import on_scale, verdict_of
from app.scoring.agreement import agreement
from app.scoring.facets import Facet

SCALE = (1, 2, 3, 4, 5)
SPLIT_POINTS = 2  # judges this far apart on one item: a human should read it
MAX_LISTED = 50  # split items listed by name; the rest are counted


@lru_cache(maxsize=4096)
def _median(scores: tuple[float | None, ...]) -> float | None:
    """Cached per distinct tuple: facets share their panel_scores, so a 100k-item report has a few hundred."""
    usable = [s for s in scores if s is not None]
    return float(statistics.median(usable)) if usable else None


def judge_score(facet: Facet) -> float | None:
    """The panel's median score; an item stored before panels (no panel_scores) carries it as its score."""
    return facet.score if facet.panel_scores is None else _median(facet.panel_scores)


def panel_agreement(facets: Sequence[Facet]) -> dict[str, Any]:
    """Krippendorff's α (ordinal) over the items at least two judges scored, with n items and n judges."""
    judged = [f.panel_scores for f in facets if f.panel_scores is not None]
    n_judges = max(map(len, judged), default=0)
    # items × judges; float conversion turns a judge's None (no usable answer) into NaN, the package's "missing"
    scores = np.array([row + (None,) * (n_judges - len(row)) for row in judged], dtype=float)
    answered = ~np.isnan(scores.reshape(len(judged), n_judges))
    out: dict[str, Any] = {
        "alpha": None,
        "level": "ordinal",
        "n_items": 0,
        "n_judges": n_judges,
        "by_judge": [
            {"judge": i, "n_scored": int(answered[:, i].sum()), "n_unusable": int((~answered[:, i]).sum())}
            for i in range(n_judges)
        ],
    }
    if n_judges < 2:
        out["reason"] = "not measured: agreement between judges needs a panel of 2 or 3 judges"
        return out
    pairable = scores[answered.sum(axis=1) >= 2]
    out["n_items"] = len(pairable)
    if not len(pairable):
        out["reason"] = "not measured: no item was scored by two judges or more"
        return out
    values = {float(v) for v in np.unique(pairable[~np.isnan(pairable)])}
    if len(values) < 2:
        out["reason"] = "not measured: every judge gave every item the same score, so α is undefined"
        return out
    domain = sorted(set(SCALE) | values)  # a median of an even number of samples may fall between points
    alpha = krippendorff.alpha(
        reliability_data=pairable.T, level_of_measurement="ordinal", value_domain=domain
    )
    out["alpha"], out["reason"] = round(float(alpha), 4), None
    return out


@lru_cache(maxsize=4096)
def _spread(scores: tuple[float | None, ...]) -> float:
    """Highest minus lowest score of the judges that answered; 0 with fewer than two."""
    usable = [s for s in scores if s is not None]
    return max(usable) - min(usable) if len(usable) >= 2 else 0.0


def disagreements(facets: Sequence[Facet]) -> dict[str, Any]:
    """Items whose judges are SPLIT_POINTS or more apart, widest first; MAX_LISTED named, the rest counted."""
    split = [(_spread(f.panel_scores), f) for f in facets if f.panel_scores is not None]
    split = sorted((pair for pair in split if pair[0] >= SPLIT_POINTS), key=lambda pair: -pair[0])
    listed = [
        {"key": f.key, "scenario": f.scenario, "scores": list(f.panel_scores or ()), "spread": spread}
        for spread, f in split[:MAX_LISTED]
    ]
    return {"threshold": SPLIT_POINTS, "n": len(split), "items": listed, "more": len(split) - len(listed)}


def rules_vs_judge(facets: Sequence[Facet]) -> dict[str, Any]:
    """On items with both grades: quadratic-weighted κ and MAE on the 1–5 scale, κ on the implied verdicts.

    Rows of each confusion matrix are the rules' grade, columns the judges'.
    """
    # Distinct (rules, judges) pairs counted first: a large report has 100k items but a few hundred pairs.
    counted = Counter(
        (f.rules_score, score)
        for f in facets
        if f.rules_score in SCALE and (score := judge_score(f)) is not None
    )
    if not counted:
        reason = "not measured: no item has both a rules grade and a judge score"
        return {"n": 0, "kappa": None, "mae": None, "buckets": None, "reason": reason}
    rules: list[int] = []
    judged: list[int] = []
    error = 0.0
    for (rule, score), n in counted.items():
        rules += [int(rule or 0)] * n
        judged += [on_scale(score)] * n
        error += abs(int(rule or 0) - score) * n
    out = agreement(rules, judged, labels=SCALE, ordinal=True)
    out["mae"] = round(error / len(rules), 4)  # on the exact median (3.5 stays 3.5); κ needs it on the scale
    out["buckets"] = agreement(
        [verdict_of(r) for r in rules], [verdict_of(j) for j in judged], labels=WORST_FIRST
    )
    out["reason"] = None
    return out


OUTCOMES = ("scored", "refused", "unavailable", "unanswered", "unparseable")
WHY_UNSCORED = {
    "refused": "declined to grade (an answer with no grade in it, not a malformed one)",
    "unavailable": "was not asked: every call to it had failed for HELMBENCH_BREAKER_AFTER items in a row, so "
    "its breaker was open",
    "unanswered": "did not answer (every call failed)",
    "unparseable": "answered, but never with a usable grade",
}


def judge_outcomes(facets: Sequence[Facet]) -> dict[str, Any]:
    """Per judge of the panel, how many items it scored, refused, could not be asked (breaker open), did not
    answer or answered unusably; and, in words, why items were left without its grade."""
    counted = Counter(f.judge_outcomes for f in facets if f.judge_outcomes is not None)
    n_judges = max((len(k) for k in counted if k), default=0)
    per = [dict.fromkeys(OUTCOMES, 0) for _ in range(n_judges)]
    for outcomes, n in counted.items():
        for i, outcome in enumerate(outcomes or ()):
            if outcome in OUTCOMES:
                per[i][outcome] += n
    reasons = [
        f"judge {i}: {n} item{'s' if n != 1 else ''} without its grade: it {WHY_UNSCORED[outcome]}"
        for i, row in enumerate(per)
        for outcome, n in row.items()
        if outcome != "scored" and n
    ]
    return {"by_judge": [{"judge": i, **row} for i, row in enumerate(per)], "reasons": reasons}


def judges_section(facets: Sequence[Facet]) -> dict[str, Any]:
    """The report's `judges` section."""
    return {
        "panel": panel_agreement(facets),
        "disagreements": disagreements(facets),
        "rules_vs_judge": rules_vs_judge(facets),
        "outcomes": judge_outcomes(facets),
    }


# Where a reader learns how far each kind of grade agrees with people on real replies.
VALIDITY_DOC = "docs/scoring.md#validity"
RULES_CAVEAT = (
    "Graded by rules only: no judge answered. On real model replies rated by trained raters the rules' 1-5 grade "
    "is measured in docs/scoring.md (validity); configure a judge or send your own labels to the labels API for a "
    "grade closer to people's."
)


def grader_section(facets: Sequence[Facet]) -> dict[str, Any]:
    """Which kind of grade the numbers are: `rules` (no judge answered any item), `judge` (one judge) or `panel`
    (two or three), with how many items a judge scored and where their agreement with people is measured."""
    judged = [f for f in facets if judge_score(f) is not None]
    n_judges = max(
        (len(f.panel_scores) for f in facets if f.panel_scores is not None), default=1 if judged else 0
    )
    method = "rules" if not judged else "panel" if n_judges >= 2 else "judge"
    out: dict[str, Any] = {
        "method": method,
        "n_items": len(facets),
        "n_judged": len(judged),
        "n_judges": n_judges,
        "validity": VALIDITY_DOC,
    }
    if method == "rules":
        out["note"] = RULES_CAVEAT
    elif len(judged) < len(facets):
        out["note"] = (
            f"{len(facets) - len(judged)} of {len(facets)} items had no judge answer and carry the rules' grade."
        )
    return out
