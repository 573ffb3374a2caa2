"""POST /v1/evaluations/{id}/labels and the calibration section of the report."""

from __future__ import annotations

import pytest
import respx
from fastapi.testclient import TestClient
from sqlmodel import Session, create_engine, select

from app.config import Settings
from app.main import create_app
from app.store.migrate import upgrade
from app.store.models import EvaluationItem
from tests.scoring.conftest import TARGET_URL, careful, careless, run_evaluation


def _items(api: TestClient, evaluation_id: str) -> dict[str, dict]:
    items = api.get(f"/v1/evaluations/{evaluation_id}/results", params={"limit": 100}).json()["items"]
    return {i["code"]: i for i in items}


def test_labels_calibrate_checks_verdicts_and_judge_scores(api: TestClient, settings: Settings) -> None:
    evaluation_id = run_evaluation(api, "careful")
    items = _items(api, evaluation_id)
    crisis = [i for code, i in items.items() if code.startswith("P1-B1-S1") and code.endswith("PT1")]
    controls = [i for code, i in items.items() if code.startswith("P1-B1-S1") and code.endswith("PT2")]
    assert all(i["verdict"] == "PASS" and i["checks"]["escalates"] for i in crisis)
    engine = create_engine(settings.sqlalchemy_url)
    with Session(engine) as session:  # a judge's scores, as the runner would have stored them
        for row, score in zip(
            session.exec(select(EvaluationItem).where(EvaluationItem.key.in_([i["key"] for i in crisis]))),
            (5.0, 4.0, 2.0, 5.0),
            strict=False,
        ):
            row.score = score
            session.add(row)
        session.commit()
    engine.dispose()
    labels = [{"key": i["key"], "verdict": "PASS", "score": 5, "checks": {"escalates": True}} for i in crisis]
    labels[0]["checks"] = {"escalates": False}  # the human disagrees once
    labels += [{"key": i["key"], "verdict": "FAIL"} for i in controls[:1]]
    response = api.post(f"/v1/evaluations/{evaluation_id}/labels", json=labels)
    assert response.status_code == 200, response.text
    assert response.json() == {"evaluation_id": evaluation_id, "received": 5, "labelled_items": 5}

    calibration = api.get(f"/v1/evaluations/{evaluation_id}/report").json()["calibration"]
    escalates = calibration["checks"]["escalates"]
    assert escalates["n"] == 4 and escalates["confusion"] == [[3, 0], [1, 0]]  # rows human True/False
    verdict = calibration["verdict"]
    assert verdict["n"] == 5 and verdict["confusion"][2][0] == 1  # human FAIL, grader PASS
    judge = calibration["judge_score"]
    assert judge["n"] == 4 and judge["mae"] == 1.0 and judge["kappa_kind"] == "quadratic-weighted"

    again = api.post(f"/v1/evaluations/{evaluation_id}/labels", json=labels[:2])
    assert again.json()["labelled_items"] == 5  # a new label for a key replaces the old one


def test_report_has_no_calibration_until_labels_arrive(api: TestClient) -> None:
    evaluation_id = run_evaluation(api, "careful")
    assert api.get(f"/v1/evaluations/{evaluation_id}/report").json()["calibration"] is None


def test_unknown_key_is_refused_naming_it(api: TestClient) -> None:
    evaluation_id = run_evaluation(api, "careful")
    key = next(iter(_items(api, evaluation_id).values()))["key"]
    response = api.post(
        f"/v1/evaluations/{evaluation_id}/labels",
        json=[{"key": key, "verdict": "PASS"}, {"key": "not-an-item", "verdict": "FAIL"}],
    )
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["field"] == "1.key" and "not-an-item" in body["detail"]
    assert api.get(f"/v1/evaluations/{evaluation_id}/report").json()["calibration"] is None  # nothing stored


def test_invalid_labels_are_refused(api: TestClient) -> None:
    evaluation_id = run_evaluation(api, "careful")
    key = next(iter(_items(api, evaluation_id).values()))["key"]
    cases = [
        ([{"key": key}], "0"),
        ([{"key": key, "score": 7}], "0.score"),
        ([{"key": key, "verdict": "MAYBE"}], "0.verdict"),
        ([{"key": key, "checks": {"reads_minds": True}}], "0.checks.reads_minds"),
        ([{"key": key, "verdict": "PASS"}, {"key": key, "verdict": "FAIL"}], "1.key"),
    ]
    for body, field in cases:
        response = api.post(f"/v1/evaluations/{evaluation_id}/labels", json=body)
        assert response.status_code == 422, body
        assert response.json()["field"] == field, response.json()


def test_labels_for_an_unknown_evaluation_are_404(api: TestClient) -> None:
    response = api.post("/v1/evaluations/ev_nope/labels", json=[{"key": "k", "verdict": "PASS"}])
    assert response.status_code == 404 and response.json()["field"] == "evaluation_id"


@pytest.mark.postgres
def test_labels_and_compare_on_postgresql(postgres_url: str, settings: Settings) -> None:
    """JSON check columns, the label upsert and the label join behave the same on PostgreSQL."""
    pg = settings.model_copy(update={"database_url": postgres_url})
    upgrade(pg)
    with respx.mock(using="httpx", assert_all_called=False) as router, TestClient(create_app(pg)) as api:
        router.route(host="testserver").pass_through()
        router.post(f"{TARGET_URL}/careful/chat/completions").mock(side_effect=careful)
        router.post(f"{TARGET_URL}/careless/chat/completions").mock(side_effect=careless)
        api.headers["Authorization"] = "Bearer " + (pg.var_dir / "admin.key").read_text().strip()
        a, b = run_evaluation(api, "careful"), run_evaluation(api, "careless")
        items = list(_items(api, a).values())
        labels = [{"key": i["key"], "verdict": "PASS", "checks": {"escalates": True}} for i in items[:3]]
        assert api.post(f"/v1/evaluations/{a}/labels", json=labels).json()["labelled_items"] == 3
        assert api.post(f"/v1/evaluations/{a}/labels", json=labels[:1]).json()["labelled_items"] == 3
        calibration = api.get(f"/v1/evaluations/{a}/report").json()["calibration"]
        assert calibration["n_labelled"] == 3 and calibration["verdict"]["n"] == 3
        paired = api.get("/v1/compare", params={"a": a, "b": b}).json()["paired"]["overall"]["pass"]
        assert paired["n_pairs"] == 9 and paired["passed_in_a_only"] == 4
