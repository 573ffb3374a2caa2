"""GET /v1/audit: every read of transcripts and every delete, newest first, for admins; rows never change."""

from __future__ import annotations

import json

import pytest
import respx
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from tests.routers.conftest import TARGET_URL, careful_bot, make_target
from tests.routers.test_grade_batches import JSONL, TRANSCRIPTS, wait_settled
from tests.security.conftest import make_team
from tests.waits import settled


def all_events(client: TestClient, **params: str) -> list[dict[str, object]]:
    events: list[dict[str, object]] = []
    cursor = None
    while True:
        query = {**params, "limit": "2", **({"cursor": cursor} if cursor else {})}
        page = client.get("/v1/audit", params=query).json()
        events += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return events


def test_reads_of_transcripts_and_deletes_are_logged_newest_first(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    evaluation_id = client.post("/v1/evaluations", json={"target_id": make_target(client)}).json()["id"]
    settled(client, evaluation_id)
    batch_id = client.post(
        "/v1/grade/batches", content="\n".join(json.dumps(t) for t in TRANSCRIPTS), headers=JSONL
    ).json()["id"]
    wait_settled(client, batch_id)
    client.get(f"/v1/evaluations/{evaluation_id}/results")
    client.get(f"/v1/evaluations/{evaluation_id}/report")  # aggregates only: not logged
    client.get(f"/evaluations/{evaluation_id}")
    client.get(f"/v1/grade/batches/{batch_id}/results")
    client.get(f"/v1/grade/batches/{batch_id}/errors")
    client.get(f"/v1/grade/batches/{batch_id}/export")
    client.delete(f"/v1/grade/batches/{batch_id}")

    events = all_events(client)
    assert [(e["action"], e["object_type"], e["object_id"]) for e in events] == [
        ("delete", "grade_batch", batch_id),
        ("export", "grade_batch", batch_id),
        ("read_errors", "grade_batch", batch_id),
        ("read_results", "grade_batch", batch_id),
        ("read_page", "evaluation", evaluation_id),
        ("read_results", "evaluation", evaluation_id),
    ]
    me = client.get("/v1/keys").json()[0]
    assert {(e["key_id"], e["team_id"]) for e in events} == {(me["id"], me["team_id"])}
    assert [e["object_id"] for e in all_events(client, object=evaluation_id)] == [evaluation_id] * 2


def test_only_admins_read_it_and_a_team_admin_sees_its_own(client: TestClient) -> None:
    team = make_team(client, "other")
    client.post("/v1/grade/batches", content=json.dumps(TRANSCRIPTS[0]), headers=JSONL)  # the platform's
    theirs = client.post(
        "/v1/grade/batches", content=json.dumps(TRANSCRIPTS[0]), headers={**JSONL, **team.member}
    ).json()["id"]
    assert client.get(f"/v1/grade/batches/{theirs}/results", headers=team.member).status_code == 200
    assert client.get("/v1/audit", headers=team.member).status_code == 403
    own = client.get("/v1/audit", headers=team.admin).json()["items"]
    assert [(e["action"], e["object_id"], e["team_id"]) for e in own] == [
        ("read_results", theirs, team.team_id)
    ]
    assert client.get("/v1/audit", params={"team_id": "team_x"}, headers=team.admin).status_code == 404
    assert len(client.get("/v1/audit", params={"team_id": team.team_id}).json()["items"]) == 1
    assert client.get("/v1/audit", params={"cursor": "nope"}).json()["field"] == "cursor"


def test_the_database_refuses_to_change_or_delete_an_audit_row(client: TestClient) -> None:
    client.delete("/v1/grade/batches/gb_nope")  # 404: nothing logged
    batch_id = client.post("/v1/grade/batches", content=json.dumps(TRANSCRIPTS[0]), headers=JSONL).json()[
        "id"
    ]
    client.get(f"/v1/grade/batches/{batch_id}/errors")
    engine = client.app.state.helmbench.deps.engine  # type: ignore[attr-defined]
    for statement in ("UPDATE audit_event SET action = 'x'", "DELETE FROM audit_event"):
        with pytest.raises(DatabaseError, match="append-only"), engine.begin() as conn:
            conn.execute(text(statement))
    assert [e["action"] for e in client.get("/v1/audit").json()["items"]] == ["read_errors"]
