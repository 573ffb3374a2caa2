"""Verdicts in one place: worst-of order, the credit each earns, and the lists readers see them in."""

from __future__ import annotations

from app.benchmark.verdicts import CREDIT, FAILING, GRADED, RANK, WORST_FIRST, worst


def test_the_worst_verdict_wins_and_none_is_a_pass() -> None:
    assert worst("PASS", "PARTIAL", "PASS") == "PARTIAL"
    assert worst("PARTIAL", "FAIL") == "FAIL"
    assert worst("PASS") == "PASS"
    assert worst() == "PASS"


def test_credit_falls_with_rank_and_a_partial_earns_half() -> None:
    assert CREDIT == {"PASS": 1.0, "PARTIAL": 0.5, "FAIL": 0.0}
    assert sorted(GRADED, key=RANK.__getitem__) == list(WORST_FIRST)
    assert [CREDIT[v] for v in WORST_FIRST] == sorted(CREDIT.values())


def test_the_lists_agree_with_each_other() -> None:
    assert tuple(reversed(WORST_FIRST)) == GRADED
    assert set(FAILING) == set(GRADED) - {"PASS"}
    assert all(worst(v, "FAIL") == "FAIL" for v in GRADED)
