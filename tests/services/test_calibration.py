"""Human labels against what the grader stored: which pairs count towards agreement, how the judge's score is
placed on the scale, and that a refused upload leaves the earlier labels as they were."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, select

from app.errors import Invalid
from app.runner.runtime import Runtime
from app.schemas import LabelIn
from app.services.calibration import calibration, save_labels
from app.store.models import Evaluation, EvaluationItem
from tests.services.conftest import CRISIS, add_owner, add_run


def _keys(deps: Runtime, evaluation_id: str, crisis: bool) -> list[str]:
    with Session(deps.engine) as session:
        stmt = select(EvaluationItem).where(EvaluationItem.evaluation_id == evaluation_id)
        rows = session.exec(stmt.order_by(EvaluationItem.idx)).all()  # type: ignore[arg-type]
        return [r.key for r in rows if (r.perturbation_id == CRISIS) == crisis]


def _set(deps: Runtime, evaluation_id: str, key: str, **columns: Any) -> None:
    """What the runner stored for one item, changed (a judge's score, a check it could not decide)."""
    with Session(deps.engine) as session:
        stmt = select(EvaluationItem).where(
            EvaluationItem.evaluation_id == evaluation_id, EvaluationItem.key == key
        )
        row = session.exec(stmt).one()
        for name, value in columns.items():
            setattr(row, name, value)
        session.add(row)
        session.commit()


def _save(deps: Runtime, evaluation_id: str, labels: list[dict[str, Any]]) -> int:
    with Session(deps.engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        accepted = save_labels(
            session=session, evaluation=evaluation, labels=[LabelIn.model_validate(x) for x in labels]
        )
        session.commit()
    assert accepted.evaluation_id == evaluation_id and accepted.received == len(labels)
    return accepted.labelled_items


def _calibration(deps: Runtime, evaluation_id: str) -> dict[str, Any] | None:
    with Session(deps.engine) as session:
        return calibration(session=session, evaluation_id=evaluation_id)


@pytest.fixture
def run(runtime: Runtime) -> str:
    return add_run(runtime, *add_owner(runtime.engine))


def test_a_judge_score_between_points_is_placed_on_the_scale_but_its_error_is_measured_raw(
    runtime: Runtime, run: str
) -> None:
    first, second = _keys(runtime, run, crisis=True)[:2]
    _set(runtime, run, first, score=3.5)  # a panel split between 3 and 4: the worse point, 3
    _set(runtime, run, second, score=5.0)
    _save(runtime, run, [{"key": first, "score": 4}, {"key": second, "score": 5}])
    judge = (_calibration(runtime, run) or {})["judge_score"]
    assert judge["n"] == 2 and judge["kappa_kind"] == "quadratic-weighted"
    assert judge["confusion"][3][2] == 1 and judge["confusion"][4][4] == 1  # human 4 / judge 3; 5 / 5
    assert judge["mae"] == 0.25  # |4 - 3.5| and |5 - 5| averaged, not the on-scale |4 - 3|


def test_undecided_checks_and_ungraded_items_are_left_out_of_agreement_but_counted_as_labelled(
    runtime: Runtime, run: str
) -> None:
    decided, undecided, ungraded, failed = _keys(runtime, run, crisis=True)
    _set(runtime, run, undecided, checks={"escalates": None})  # the grader could not tell
    _set(runtime, run, ungraded, verdict="UNGRADED")
    _set(runtime, run, failed, verdict=None, error_class="target_error", error="HTTP 500")
    labels = [{"key": k, "verdict": "PASS", "checks": {"escalates": True}} for k in (decided, undecided)]
    labels += [{"key": k, "verdict": "FAIL"} for k in (ungraded, failed)]
    assert _save(runtime, run, labels) == 4

    found = _calibration(runtime, run)
    assert found is not None and found["n_labelled"] == 4
    assert found["checks"]["escalates"]["n"] == 1  # only the check the grader decided
    assert found["verdict"]["n"] == 2 and found["verdict"]["agreement"] == 1.0
    assert (found["judge_score"]["n"], found["judge_score"]["mae"]) == (0, None)  # no judge ran


def test_a_new_label_replaces_the_old_judgement_and_another_evaluations_labels_do_not_count(
    runtime: Runtime,
) -> None:
    team_id, target_id = add_owner(runtime.engine)
    run, other = add_run(runtime, team_id, target_id), add_run(runtime, team_id, target_id)
    assert _calibration(runtime, run) is None
    key = _keys(runtime, run, crisis=True)[0]
    assert _save(runtime, run, [{"key": key, "verdict": "FAIL"}]) == 1
    assert (_calibration(runtime, run) or {})["verdict"]["agreement"] == 0.0  # the grader said PASS
    _save(runtime, other, [{"key": k, "verdict": "FAIL"} for k in _keys(runtime, other, crisis=False)])

    assert _save(runtime, run, [{"key": key, "verdict": "PASS"}]) == 1
    verdict = (_calibration(runtime, run) or {})["verdict"]
    assert verdict["n"] == 1 and verdict["agreement"] == 1.0


def test_one_bad_label_refuses_the_upload_naming_its_place_and_keeps_the_earlier_labels(
    runtime: Runtime, run: str
) -> None:
    crisis = _keys(runtime, run, crisis=True)
    _save(runtime, run, [{"key": crisis[0], "checks": {"escalates": False}}])
    before = _calibration(runtime, run)
    uploads = [
        (
            [{"key": crisis[0], "verdict": "PASS"}, {"key": crisis[1], "checks": {"reads_minds": True}}],
            "1.checks.reads_minds",
        ),
        ([{"key": crisis[0], "verdict": "PASS"}, {"key": crisis[0], "verdict": "FAIL"}], "1.key"),
        ([{"key": crisis[0], "verdict": "PASS"}, {"key": "k-not-here", "verdict": "FAIL"}], "1.key"),
    ]
    for labels, field in uploads:
        with pytest.raises(Invalid) as refused:
            _save(runtime, run, labels)
        assert refused.value.field == field
    assert _calibration(runtime, run) == before
    assert before is not None and before["checks"]["escalates"]["confusion"] == [[0, 0], [1, 0]]
