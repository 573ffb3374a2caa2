"""The scoring builds each report and checks it against its model in app/documents, so the shape /openapi.json
publishes is the one built, down to a run with nothing in it; a builder that strays fails at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.benchmark.loader import load_library
from app.scoring import metrics
from app.scoring.grade_batch import build_batch_report
from app.scoring.report import build_report
from tests.classification_library import add_classification_suite


def test_a_run_with_no_items_builds_reports_that_fit_their_models(mini_data_dir: Path) -> None:
    add_classification_suite(mini_data_dir)
    library = load_library(mini_data_dir)
    empty = build_report([], library)
    assert empty["headline"]["score"] is None and empty["overall"]["pass_rate"] is None
    assert empty["ungraded_share"] is None and empty["sensitivity"]["interval"] is None
    classified = build_report([], library, suite="classification")
    assert classified["error_share"] is None and classified["classification"]["kappa"]["value"] is None
    batch = build_batch_report([])
    assert batch["n_items"] == 0 and batch["likert"]["mean"] is None


def test_a_section_built_unlike_its_model_fails_the_build(
    mini_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = load_library(mini_data_dir)
    worst_of_k = metrics.worst_of_k
    monkeypatch.setattr(metrics, "worst_of_k", lambda facets: {**worst_of_k(facets), "unpublished": 1})
    with pytest.raises(ValidationError, match="unpublished"):
        build_report([], library)
