"""Paired significance between two evaluations of one benchmark version, matched by item cell."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from scipy.special import bdtr

from app.benchmark.verdicts import GRADED
from app.scoring.facets import StoredItem

Cell = tuple[str, str, str, str | None]


def _cells(items: Iterable[StoredItem]) -> dict[Cell, tuple[bool | None, float | None]]:
    """Repeats folded per cell: passed only if every graded repeat passed (worst-of-k), mean judge score."""
    verdicts: dict[Cell, list[bool]] = defaultdict(list)
    scores: dict[Cell, list[float]] = defaultdict(list)
    for it in items:
        cell = (it.scenario_id, it.perturbation_id, it.condition_id, it.user_context_id)
        if it.verdict in GRADED:
            verdicts[cell].append(it.verdict == "PASS")
        if it.score is not None:
            scores[cell].append(float(it.score))
    return {
        c: (
            all(verdicts[c]) if verdicts.get(c) else None,
            sum(scores[c]) / len(scores[c]) if scores.get(c) else None,
        )
        for c in set(verdicts) | set(scores)
    }


def mcnemar_p(a_only: int, b_only: int) -> float:
    """Exact McNemar's two-sided p-value: twice the smaller tail of Binomial(discordant pairs, 1/2), at most 1;
    what SciPy's binomtest gives (tested). From scipy.special's binomial CDF rather than scipy.stats: every
    report computes it, and importing scipy.stats costs a process ~60 MB and ~0.6 s, which a worker then pays
    from its start (a replacement for a killed one takes shards later) though only comparisons need the rest."""
    n = a_only + b_only
    if not n:
        return 1.0
    return min(1.0, 2.0 * float(bdtr(min(a_only, b_only), n, 0.5)))


def mcnemar(pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    """Exact McNemar: a binomial test on the discordant pairs (passed in one evaluation only)."""
    a_only = sum(a and not b for a, b in pairs)
    b_only = sum(b and not a for a, b in pairs)
    p = mcnemar_p(a_only, b_only)
    n = len(pairs)
    return {
        "n_pairs": n,
        "a_pass_rate": round(sum(a for a, _ in pairs) / n, 4) if n else None,
        "b_pass_rate": round(sum(b for _, b in pairs) / n, 4) if n else None,
        "passed_in_a_only": a_only,
        "passed_in_b_only": b_only,
        "p_value": round(float(p), 6),
    }


def signed_rank(pairs: list[tuple[float, float]]) -> dict[str, Any]:
    """Wilcoxon signed-rank on paired judge scores; no differences at all means no evidence of one."""
    diffs = [b - a for a, b in pairs]
    n = len(pairs)
    out: dict[str, Any] = {"n_pairs": n, "mean_difference": round(sum(diffs) / n, 4) if n else None}
    if not any(diffs):
        return {**out, "p_value": 1.0 if n else None}
    from scipy.stats import wilcoxon  # imported here: only comparisons need scipy.stats (see mcnemar_p)

    return {**out, "p_value": round(float(wilcoxon(diffs).pvalue), 6)}


def paired_tests(
    a: Iterable[StoredItem], b: Iterable[StoredItem], keys: dict[str, Callable[[Cell], str]]
) -> dict[str, dict[str, Any]]:
    """McNemar on pass/fail and Wilcoxon on scores, over all matched cells and per grouping (pillar, …)."""
    ca, cb = _cells(a), _cells(b)
    common = sorted(set(ca) & set(cb), key=str)
    groups: dict[str, dict[str, list[Cell]]] = {"overall": {"all": common}}
    for name, key in keys.items():
        grouped: dict[str, list[Cell]] = defaultdict(list)
        for cell in common:
            grouped[key(cell)].append(cell)
        groups[name] = dict(sorted(grouped.items()))
    out: dict[str, dict[str, Any]] = {}
    for name, members in groups.items():
        out[name] = {}
        for label, cells in members.items():
            verdict_pairs = [
                (ca[c][0], cb[c][0]) for c in cells if ca[c][0] is not None and cb[c][0] is not None
            ]
            score_pairs = [
                (ca[c][1], cb[c][1]) for c in cells if ca[c][1] is not None and cb[c][1] is not None
            ]
            out[name][label] = {
                "pass": mcnemar(verdict_pairs),  # type: ignore[arg-type]
                "score": signed_rank(score_pairs),
            }  # type: ignore[arg-type]
    out["overall"] = out["overall"]["all"]
    return out
