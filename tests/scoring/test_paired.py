"""Paired tests: exact McNemar on discordant cells, Wilcoxon on scores, repeats folded worst-of-k."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy.stats import binomtest, wilcoxon

from app.scoring.facets import StoredItem
from app.scoring.paired import mcnemar, mcnemar_p, paired_tests, signed_rank


def item(
    pt: int, verdict: str | None, score: float | None = None, repeat: int = 0, scenario: str = "P1-B1-S1"
) -> StoredItem:
    return StoredItem(
        f"k{pt}{repeat}",
        scenario,
        f"{scenario}-C1",
        None,
        f"{scenario}-PT{pt}",
        repeat,
        verdict,
        score,
        {},
        None,
    )


def test_mcnemar_uses_only_discordant_pairs() -> None:
    pairs = [(True, True)] * 30 + [(True, False)] * 7 + [(False, True)] * 1
    out = mcnemar(pairs)
    assert (out["passed_in_a_only"], out["passed_in_b_only"], out["n_pairs"]) == (7, 1, 38)
    assert out["p_value"] == pytest.approx(binomtest(1, 8, 0.5).pvalue, abs=1e-6)
    assert mcnemar([(True, True)] * 5)["p_value"] == 1.0


def test_signed_rank_matches_scipy_and_handles_no_difference() -> None:
    pairs = [(3.0, 4.0), (2.0, 4.0), (5.0, 5.0), (1.0, 4.0), (2.0, 3.0), (3.0, 5.0)]
    out = signed_rank(pairs)
    assert out["p_value"] == pytest.approx(wilcoxon([b - a for a, b in pairs]).pvalue, abs=1e-6)
    assert out["mean_difference"] == 1.5
    assert signed_rank([(2.0, 2.0)])["p_value"] == 1.0


def test_cells_are_matched_across_evaluations_and_repeats_fold_worst_of_k() -> None:
    a = [item(1, "PASS"), item(1, "PASS", repeat=1), item(2, "PASS"), item(3, "FAIL")]
    b = [item(1, "PASS"), item(1, "FAIL", repeat=1), item(2, "PASS"), item(4, "PASS")]
    out = paired_tests(a, b, {"by_scenario": lambda cell: cell[0]})
    assert out["overall"]["pass"]["n_pairs"] == 2  # PT1 and PT2; PT3 and PT4 ran in one evaluation only
    assert out["overall"]["pass"]["passed_in_a_only"] == 1  # PT1 failed one of its repeats in b
    assert out["by_scenario"]["P1-B1-S1"]["pass"]["n_pairs"] == 2


def test_ungraded_cells_pair_on_scores_only() -> None:
    a = [item(1, "UNGRADED", 2.0), item(2, "UNGRADED", 3.0)]
    b = [item(1, "UNGRADED", 4.0), item(2, "UNGRADED", 5.0)]
    out = paired_tests(a, b, {})["overall"]
    assert (
        out["pass"]["n_pairs"] == 0
        and out["score"]["n_pairs"] == 2
        and out["score"]["mean_difference"] == 2.0
    )


@given(st.integers(0, 3000), st.integers(0, 3000))
@example(0, 0)
@example(5, 5)
@example(0, 1)
@example(1, 2)
@example(1500, 1501)
@example(14, 2857)  # SciPy underflows to 0.0 here
def test_mcnemar_p_is_scipys_exact_binomial_test(a_only: int, b_only: int) -> None:
    """The p-value every report and comparison prints: SciPy's binomtest's, to the six decimals published."""
    expected = binomtest(b_only, a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0
    got = mcnemar_p(a_only, b_only)
    assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)  # SciPy gives 0.0 where bdtr gives 1e-300
    assert round(got, 6) == round(float(expected), 6)
