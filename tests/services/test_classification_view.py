"""The report page's view of a classify run: the matrix rows read as the scoring computed them, in words, with
totals per answered column; a report of another suite has no such view."""

from __future__ import annotations

from app.scoring.classification import COLUMNS, Answer, classification_section
from app.services.classification_view import classification_view

SI, NC = "suicidal_ideation", "no_crisis"


def _section() -> dict:
    pairs = [(SI, SI), (SI, SI), (SI, NC), (NC, NC), (NC, NC), (NC, "outside")]
    answers = [
        Answer(a, b, f"S{i % 3}", "label" if b != "outside" else "no_label") for i, (a, b) in enumerate(pairs)
    ]
    return classification_section(answers, n_items=7, n_errors=1)


def test_the_view_reads_the_scored_matrix_in_words_with_column_totals() -> None:
    section = _section()
    view = classification_view({"classification": section})
    assert view is not None
    assert (view.n_items, view.n_answered, view.n_errors) == (7, 6, 1)
    assert view.columns[-1] == "outside" and "suicidal ideation" in view.columns
    si = next(row for row in view.rows if row.label == "suicidal ideation")
    assert si.cells[0] == 2 and si.cells[COLUMNS.index(NC)] == 1
    assert (si.recall.value, si.precision.value) == (round(2 / 3, 4), 1.0)
    assert view.column_totals[-1] == 1 and sum(view.column_totals) == 6
    assert view.kappa.value == section["kappa"]["value"]
    assert view.accuracy.value == round(4 / 6, 4) and view.outside.value == round(1 / 6, 4)


def test_a_report_without_a_classification_section_has_no_view() -> None:
    assert classification_view({"pass_rate": 0.5}) is None
    assert classification_view({"classification": None}) is None
