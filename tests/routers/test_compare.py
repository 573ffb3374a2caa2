"""GET /v1/compare: metric differences and paired tests between two evaluations of one team."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from scipy.stats import binomtest
from sqlmodel import Session, create_engine

from app.config import Settings
from app.scoring.watched_metrics import holm
from app.store.models import Evaluation
from tests.scoring.conftest import run_evaluation


def test_compare_reports_differences_and_mcnemar_on_matched_cells(api: TestClient) -> None:
    a, b = run_evaluation(api, "careful"), run_evaluation(api, "careless")
    response = api.get("/v1/compare", params={"a": a, "b": b})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["a"]["id"] == a and body["b"]["id"] == b
    pass_rate = body["metrics"]["pass_rate"]
    assert pass_rate["a"] == 1.0 and pass_rate["b"] < 1.0
    assert pass_rate["difference"] == round(pass_rate["b"] - pass_rate["a"], 4)
    assert body["metrics"]["sensitivity"]["a"] == 1.0 and body["metrics"]["sensitivity"]["b"] == 0.0
    assert "pillar:P1" in body["metrics"] and "behavior:P1-B1" in body["metrics"]
    overall = body["paired"]["overall"]["pass"]
    assert overall["n_pairs"] == 9 and overall["passed_in_b_only"] == 0
    lost = overall["passed_in_a_only"]
    assert lost == 4  # the four crisis cells (2 conditions × no context / U1) the careless bot misses
    assert overall["p_value"] == round(binomtest(0, lost, 0.5).pvalue, 6)
    assert body["paired"]["by_pillar"]["P4"]["pass"]["passed_in_a_only"] == 0
    assert body["paired"]["overall"]["score"] == {"n_pairs": 0, "mean_difference": None, "p_value": None}
    # each side's headline as the report reads it, and every metric named in the report's words
    for side, evaluation_id in (("a", a), ("b", b)):
        headline = api.get(f"/v1/evaluations/{evaluation_id}/report").json()["headline"]
        assert body[side]["score_100"] == headline["score_100"] and body[side]["band"] == headline["band"]
        assert body[side]["quality_100"] == headline["quality_100"] and body[side].get("cap") == headline.get(
            "cap"
        )
    assert set(body["labels"]) == set(body["metrics"]) and body["labels"]["headline"] == "headline score"
    assert body["labels"]["pillar:P1"].startswith("P1 ") and body["labels"]["pillar:P1"].endswith(
        ": pass rate"
    )


def test_watched_metrics_are_paired_by_item_key_and_holm_adjusted_together(api: TestClient) -> None:
    a, b = run_evaluation(api, "careful"), run_evaluation(api, "careless")
    by_metric = api.get("/v1/compare", params={"a": a, "b": b}).json()["paired"]["by_metric"]
    assert {"headline", "pillar:P1", "pillar:P4", "sensitivity", "false_alarms_on_controls"} <= set(by_metric)
    missed = by_metric["sensitivity"]
    assert (missed["a"], missed["b"], missed["worsened"]) == (1.0, 0.0, missed["n_pairs"])
    assert missed["interval"] == [-1.0, -1.0] and missed["test"] == "mcnemar"
    assert missed["p_value"] == round(binomtest(0, missed["n_pairs"], 0.5).pvalue, 6)
    raw = [m["p_value"] for m in by_metric.values()]
    assert [m["p_adjusted"] for m in by_metric.values()] == pytest.approx(holm(raw), abs=1e-5)
    assert missed["p_adjusted"] > missed["p_value"]  # adjusted for every other metric tested with it
    calm = by_metric["false_alarms_on_controls"]
    assert calm["higher_is_better"] is False and calm["difference"] == 0.0  # neither bot over-escalates


def test_an_evaluation_compared_with_itself_shows_no_difference(api: TestClient) -> None:
    a = run_evaluation(api, "careful")
    body = api.get("/v1/compare", params={"a": a, "b": a}).json()
    assert body["metrics"]["headline"]["difference"] == 0.0
    assert body["paired"]["overall"]["pass"]["p_value"] == 1.0


def test_different_benchmark_versions_conflict(api: TestClient, settings: Settings) -> None:
    a, b = run_evaluation(api, "careful"), run_evaluation(api, "careless")
    engine = create_engine(settings.sqlalchemy_url)
    with Session(engine) as session:
        row = session.get(Evaluation, b)
        assert row is not None
        row.benchmark_version = "hb-000000000000"
        session.add(row)
        session.commit()
    engine.dispose()
    response = api.get("/v1/compare", params={"a": a, "b": b})
    assert response.status_code == 409 and response.json()["field"] == "b"
    assert response.headers["content-type"].startswith("application/problem+json")


def test_unknown_or_missing_evaluations(api: TestClient) -> None:
    a = run_evaluation(api, "careful")
    missing = api.get("/v1/compare", params={"a": "ev_nope", "b": a})
    assert missing.status_code == 404 and missing.json()["field"] == "a"
    assert api.get("/v1/compare", params={"a": a}).status_code == 422
    assert api.get("/v1/compare", params={"a": a, "b": a}, headers={"Authorization": ""}).status_code == 401
