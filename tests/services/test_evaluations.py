"""Creating an evaluation: the matrix sized and sharded from the suite, repeats and shard size; an
Idempotency-Key that is the team's own; refusals that name the field and store nothing."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, func, select

from app.config import Settings
from app.errors import DomainError, Invalid, NotFound
from app.runner.runtime import Runtime
from app.schemas import EvaluationCreate
from app.services.evaluations import create_evaluation, public_evaluation
from app.store.items import insert_items
from app.store.models import Evaluation
from tests.services.conftest import add_owner, add_run
from tests.store.conftest import item_row


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"shard_size": 4, "max_repeats": 3})


def _create(deps: Runtime, team_id: str, key: str | None = None, **body: Any) -> tuple[str, bool]:
    with Session(deps.engine) as session:
        evaluation, created = create_evaluation(
            session=session,
            settings=deps.settings,
            library=deps.library,
            team_id=team_id,
            body=EvaluationCreate.model_validate(body),
            idempotency_key=key,
            secrets=deps.secrets,
        )
        session.commit()
        return evaluation.id, created


def _stored(deps: Runtime, team_id: str) -> int:
    with Session(deps.engine) as session:
        stmt = select(func.count()).select_from(Evaluation).where(Evaluation.team_id == team_id)
        return int(session.exec(stmt).one())


def test_the_matrix_is_sized_from_suite_and_repeats_and_cut_into_shards(runtime: Runtime) -> None:
    team_id, target_id = add_owner(runtime.engine)
    evaluation_id, created = _create(runtime, team_id, target_id=target_id, suite="full", repeats=2)
    with Session(runtime.engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None and created
        assert (evaluation.total, evaluation.shards, evaluation.status) == (
            18,
            5,
            "queued",
        )  # 9 cells x 2, by 4
        assert evaluation.plan is not None and evaluation.plan["items"] == 18
        assert (evaluation.target_name, evaluation.model, evaluation.target_version) == ("bot", "m", 1)
        assert evaluation.benchmark_version == runtime.library.version
        public = public_evaluation(session=session, evaluation=evaluation)
    assert public.progress.model_dump() == {"total": 18, "done": 0, "failed": 0}
    assert public.plan is not None and public.plan.items == 18
    assert public.calls_used is None and public.simulator is None  # no caps asked for, not a simulated suite


def test_progress_counts_the_items_written_and_those_that_ended_in_error(runtime: Runtime) -> None:
    team_id, target_id = add_owner(runtime.engine)
    evaluation_id, _ = _create(runtime, team_id, target_id=target_id, suite="full", max_calls=100)
    rows = [item_row(evaluation_id, 0, verdict="PASS"), item_row(evaluation_id, 1, verdict="PASS")]
    rows.append(item_row(evaluation_id, 2, error_class="target_error"))
    insert_items(engine=runtime.engine, rows=rows)
    with Session(runtime.engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        public = public_evaluation(session=session, evaluation=evaluation)
    assert public.progress.model_dump() == {"total": 9, "done": 3, "failed": 1}
    assert (public.max_calls, public.calls_used) == (100, 0)  # a capped run shows what it has used


def test_an_idempotency_key_is_the_teams_own(runtime: Runtime) -> None:
    ours_team, ours_target = add_owner(runtime.engine, "ours")
    theirs_team, theirs_target = add_owner(runtime.engine, "theirs")
    first, created = _create(runtime, ours_team, "release-1", target_id=ours_target)
    assert created and _create(runtime, ours_team, "release-1", target_id=ours_target) == (first, False)
    theirs, created = _create(runtime, theirs_team, "release-1", target_id=theirs_target)
    assert created and theirs != first
    assert (_stored(runtime, ours_team), _stored(runtime, theirs_team)) == (1, 1)


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        ({"target_id": "theirs"}, NotFound, "target_id"),
        ({"suite": "conversations"}, Invalid, "suite"),  # a suite the API knows and this library lacks
        ({"repeats": 4}, Invalid, "repeats"),  # within the schema's bound, over this deployment's
        ({"baseline_evaluation_id": "theirs"}, Invalid, "baseline_evaluation_id"),
        ({"simulator": {"base_url": "http://127.0.0.1:9/v1", "model": "sim"}}, Invalid, "simulator"),
    ],
)
def test_a_refusal_names_the_field_and_stores_nothing(
    runtime: Runtime, body: dict[str, Any], error: type[DomainError], field: str
) -> None:
    team_id, target_id = add_owner(runtime.engine, "ours")
    theirs_team, theirs_target = add_owner(runtime.engine, "theirs")
    theirs = {
        "target_id": theirs_target,
        "baseline_evaluation_id": add_run(runtime, theirs_team, theirs_target),
    }
    request = {k: theirs[k] if v == "theirs" else v for k, v in {"target_id": target_id, **body}.items()}
    with pytest.raises(error) as refused:
        _create(runtime, team_id, "attempt-1", **request)
    assert type(refused.value) is error and refused.value.field == field
    assert _stored(runtime, team_id) == 0
