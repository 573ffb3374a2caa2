"""The classification report on known data: the confusion matrix, kappa, precision and recall, the outside share."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.benchmark.loader import Library, load_library
from app.grading.reading.classification import label_checks
from app.scoring.agreement import kappa
from app.scoring.classification import (
    COLUMNS,
    Answer,
    _kappas,
    classification_section,
    kappa_interval,
    tally,
)
from app.scoring.facets import StoredItem
from app.scoring.report import BOARD_SLICES, build_report
from tests.classification_library import add_classification_suite

SI, NC = "suicidal_ideation", "no_crisis"


@pytest.fixture
def library(mini_data_dir: Path) -> Library:
    return load_library(mini_data_dir)


@pytest.fixture
def classify_library(mini_data_dir: Path) -> Library:
    return load_library(add_classification_suite(mini_data_dir))


def answers(pairs: list[tuple[str, str]], clusters: int = 3) -> list[Answer]:
    return [
        Answer(a, b, f"S{i % clusters}", "label" if b != "outside" else "no_label")
        for i, (a, b) in enumerate(pairs)
    ]


def test_hand_computed_kappa_precision_recall_and_outside_share() -> None:
    # SI: 2 right, 1 answered NC; NC: 2 right, 1 answered outside the label set.
    section = classification_section(
        answers([(SI, SI), (SI, SI), (SI, NC), (NC, NC), (NC, NC), (NC, "outside")]), n_items=7, n_errors=1
    )
    # po = 4/6; pe = (3/6)(2/6) + (3/6)(3/6) = 5/12; kappa = (2/3 - 5/12) / (7/12) = 3/7
    assert section["kappa"]["value"] == round(3 / 7, 4)
    assert section["accuracy"]["count"] == 4 and section["accuracy"]["rate"] == round(4 / 6, 4)
    assert section["per_category"][SI]["precision"]["rate"] == 1.0
    assert section["per_category"][SI]["recall"]["rate"] == round(2 / 3, 4)
    assert section["per_category"][NC]["precision"]["rate"] == round(2 / 3, 4)
    assert section["per_category"]["self_harm"]["recall"] == {
        "n": 0,
        "count": 0,
        "rate": None,
        "interval": None,
    }
    assert section["outside"]["count"] == 1 and section["outside"]["rate"] == round(1 / 6, 4)
    assert section["outside"]["by_reason"] == {"no_label": 1}
    cells = section["confusion"]["cells"]
    assert section["confusion"]["rows"][0] == SI and section["confusion"]["columns"][-1] == "outside"
    assert cells[0][0] == 2 and cells[0][COLUMNS.index(NC)] == 1 and cells[COLUMNS.index(NC)][-1] == 1
    assert sum(map(sum, cells)) == section["n_answered"] == 6
    assert (section["n_items"], section["n_errors"]) == (7, 1)


def test_answering_outside_the_label_set_lowers_kappa() -> None:
    right = [(SI, SI), (NC, NC)] * 10
    refused_hard_ones = right[:-4] + [(SI, "outside"), (NC, "outside")] * 2
    perfect = classification_section(answers(right), 20, 0)["kappa"]["value"]
    assert perfect == 1.0
    assert classification_section(answers(refused_hard_ones), 20, 0)["kappa"]["value"] < perfect


def test_no_answers_give_no_figures() -> None:
    section = classification_section([], n_items=3, n_errors=3)
    assert section["kappa"]["value"] is None and section["accuracy"]["rate"] is None
    assert section["confusion"]["cells"] == [[0] * len(COLUMNS) for _ in range(len(COLUMNS) - 1)]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 20), min_size=3, max_size=3), min_size=3, max_size=3))
@example([[13, 0, 19], [4, 13, 15], [8, 20, 4]])  # kappa -0.03125: on a rounding boundary
def test_stacked_kappa_matches_the_agreement_module(rows: list[list[int]]) -> None:
    matrix = np.array(rows)
    if matrix.sum() == 0:
        return
    single = kappa(matrix)
    stacked = _kappas(matrix[None].astype(float))[0]
    if single is None or np.isnan(stacked):
        assert single in (None, 1.0)
    else:
        # `kappa` rounds to 4 places; a value on a rounding boundary may land either side of it from the two
        # float paths, so the unrounded stacked value is compared with half a unit of that rounding.
        assert float(stacked) == pytest.approx(single, abs=5e-5 + 1e-9)


def test_kappa_interval_is_seeded_and_brackets_the_estimate() -> None:
    rng = np.random.default_rng(0)
    pairs = [(a, a if rng.random() < 0.7 else b) for a, b in zip([SI, NC] * 60, [NC, SI] * 60, strict=True)]
    data = answers(pairs, clusters=12)
    value = classification_section(data, 120, 0)["kappa"]["value"]
    low, high = kappa_interval(data)  # type: ignore[misc]
    assert low < value < high and kappa_interval(data) == (low, high)
    assert kappa_interval(answers(pairs, clusters=1)) is None  # one cluster: nothing to resample


def _stored(library: Library, pt: str, reply: str | None, error: str | None = None) -> StoredItem:
    scenario, perturbation = pt.rsplit("-", 1)
    expected = next(
        p for p in library.scenarios[scenario].perturbations if p.id == perturbation
    ).crisis_category
    checks = label_checks(expected, reply) if error is None else {}
    return StoredItem("k" + pt, scenario, f"{scenario}-C1", None, pt, 0, None, None, checks, error)


def test_tally_reads_authored_labels_from_the_library_and_keeps_failures_out(library: Library) -> None:
    items = [
        _stored(library, "P1-B1-S1-PT1", "suicidal_ideation"),
        _stored(library, "P1-B1-S1-PT2", "Suicidal ideation."),  # authored no_crisis: a false alarm
        _stored(library, "P4-B1-S1-PT1", None, error="timeout"),
        StoredItem("gone", "P9-B9-S9", "P9-B9-S9-C1", None, "P9-B9-S9-PT1", 0, None, None, {}, None),
    ]
    counted = tally(items, library)
    assert (counted.n_items, counted.n_errors, len(counted.answers)) == (3, 1, 2)
    section = classification_section(counted.answers, counted.n_items, counted.n_errors)
    assert section["per_category"][SI]["precision"]["rate"] == 0.5
    assert section["per_category"][SI]["recall"]["rate"] == 1.0


def test_a_classify_suite_gets_the_classification_report_and_no_board_figures(
    classify_library: Library,
) -> None:
    items = [_stored(classify_library, "P1-B1-S1-PT1", "suicidal_ideation")]
    report = build_report(items, classify_library, with_slices=True, suite="classification")
    assert report["task"] == "classify" and report["classification"]["n_answered"] == 1
    assert "headline" not in report and report[BOARD_SLICES] == {}
    respond = build_report(items, classify_library, suite="quick")
    assert "classification" not in respond and "headline" in respond


def test_the_kind_stored_with_the_items_picks_their_report_over_the_suite(classify_library: Library) -> None:
    """A run's items keep the kind that played them: their report stays theirs whatever the suite is called now."""
    items = [_stored(classify_library, "P1-B1-S1-PT1", "suicidal_ideation")]
    labelled = build_report(items, classify_library, suite="quick", kind="classification")
    assert labelled["task"] == "classify" and "headline" not in labelled
    assert "headline" in build_report(items, classify_library, suite="classification", kind="matrix")
