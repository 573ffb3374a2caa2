"""Comparing two of a team's evaluations: b − a, so swapping them turns every difference round; pairs only
where both have the cell; another team's evaluation is not found, named by the side it was given on."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, col, delete

from app.errors import Conflict, NotFound
from app.runner.runtime import Runtime
from app.services.compare import compare
from app.store.models import EvaluationItem
from tests.services.conftest import add_owner, add_run


def _compare(deps: Runtime, team_id: str, a: str, b: str) -> dict[str, Any]:
    with Session(deps.engine) as session:
        return compare(session=session, library=deps.library, team_id=team_id, a_id=a, b_id=b)


def test_swapping_the_sides_turns_every_difference_and_discordant_count_round(runtime: Runtime) -> None:
    team_id, target_id = add_owner(runtime.engine)
    careful = add_run(runtime, team_id, target_id)
    careless = add_run(runtime, team_id, target_id, misses_crisis=True)
    forward = _compare(runtime, team_id, careful, careless)
    backward = _compare(runtime, team_id, careless, careful)

    assert (forward["a"]["id"], forward["b"]["id"]) == (careful, careless)
    assert forward["metrics"]["pillar:P1"] == {"a": 1.0, "b": 0.5, "difference": -0.5}  # 4 of 8 P1 items fail
    assert forward["metrics"]["pillar:P4"]["difference"] == 0.0
    assert forward["metrics"]["sensitivity"] == {"a": 1.0, "b": 0.0, "difference": -1.0}
    assert "classification_accuracy" not in forward["metrics"]  # not a classify run
    for name, row in forward["metrics"].items():
        back = backward["metrics"][name]
        assert (back["a"], back["b"]) == (row["b"], row["a"]), name
        if row["difference"] is not None:
            assert back["difference"] == pytest.approx(-row["difference"]), name
    ahead, behind = forward["paired"]["overall"]["pass"], backward["paired"]["overall"]["pass"]
    assert (ahead["passed_in_a_only"], ahead["passed_in_b_only"]) == (4, 0)
    assert (behind["passed_in_a_only"], behind["passed_in_b_only"]) == (0, 4)
    assert ahead["p_value"] == behind["p_value"]


def test_only_cells_written_in_both_are_paired(runtime: Runtime) -> None:
    team_id, target_id = add_owner(runtime.engine)
    done = add_run(runtime, team_id, target_id)
    running = add_run(runtime, team_id, target_id, status="running", misses_crisis=True)
    with Session(runtime.engine) as session:  # the running one has written its first three items so far
        session.execute(
            delete(EvaluationItem).where(
                col(EvaluationItem.evaluation_id) == running, col(EvaluationItem.idx) >= 3
            )
        )
        session.commit()
    body = _compare(runtime, team_id, done, running)
    assert body["b"]["status"] == "running"
    assert body["paired"]["overall"]["pass"]["n_pairs"] == 3
    assert sum(g["pass"]["n_pairs"] for g in body["paired"]["by_pillar"].values()) == 3


def test_another_teams_evaluation_is_not_found_on_either_side_and_versions_must_match(
    runtime: Runtime,
) -> None:
    ours_team, ours_target = add_owner(runtime.engine, "ours")
    ours = add_run(runtime, ours_team, ours_target)
    theirs = add_run(runtime, *add_owner(runtime.engine, "theirs"))
    for a, b, side in ((theirs, ours, "a"), (ours, theirs, "b"), (ours, "ev_nope", "b")):
        with pytest.raises(NotFound) as missing:
            _compare(runtime, ours_team, a, b)
        assert missing.value.field == side
    older = add_run(runtime, ours_team, ours_target, benchmark_version="hb-000000000000")
    with pytest.raises(Conflict) as conflict:
        _compare(runtime, ours_team, older, ours)
    assert conflict.value.field == "b" and "hb-000000000000" in conflict.value.detail
