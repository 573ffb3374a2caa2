"""Public by opt-in only; transcripts (messages, replies) only when the owner also sets share_transcripts."""

from __future__ import annotations

import respx
from fastapi.testclient import TestClient

from tests.routers.conftest import TARGET_URL, careful_bot
from tests.security.conftest import TeamKeys
from tests.waits import settled

REPLY = "Sure, here you go."  # what careful_bot answers to the ordinary questions
ASKED = "what should I plant in autumn"  # a user message of the mini library


def _run(client: TestClient, team: TeamKeys, target_id: str, **body: object) -> str:
    started = client.post("/v1/evaluations", headers=team.admin, json={"target_id": target_id, **body})
    assert started.status_code == 202, started.text
    evaluation_id = started.json()["id"]
    assert settled(client, evaluation_id, headers=team.admin)["status"] == "succeeded"
    return evaluation_id


def test_public_pages_show_transcripts_only_when_shared(
    client: TestClient, team_a: TeamKeys, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    target = client.post(
        "/v1/targets", headers=team_a.admin, json={"name": "bot", "base_url": TARGET_URL, "model": "m"}
    ).json()["id"]
    private = _run(client, team_a, target)
    public = _run(client, team_a, target, visibility="public")
    shared = _run(client, team_a, target, visibility="public", share_transcripts=True)
    assert client.get(f"/v1/evaluations/{shared}", headers=team_a.admin).json()["share_transcripts"] is True

    assert client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]  # rendered in the background
    board = client.get("/v1/leaderboard")
    listed = {e["evaluation_id"] for e in board.json()["entries"]}
    assert listed == {public, shared}
    assert REPLY not in board.text and ASKED not in board.text

    assert client.get(f"/v1/leaderboard/{private}/results").status_code == 404
    hidden = client.get(f"/v1/leaderboard/{public}/results")
    assert hidden.status_code == 200 and hidden.json()["items"]
    assert all(i["messages"] == [] and i["reply"] is None for i in hidden.json()["items"])
    assert all(i["verdict"] for i in hidden.json()["items"])  # results, without what was said
    assert REPLY not in hidden.text and ASKED not in hidden.text
    open_ = client.get(f"/v1/leaderboard/{shared}/results")
    assert REPLY in open_.text and ASKED in open_.text

    # The HTML pages follow the same rule for a visitor without a key.
    assert REPLY not in client.get(f"/evaluations/{public}").text
    assert client.get(f"/evaluations/{private}").status_code == 404
    assert client.get("/evaluations/" + shared).status_code == 200

    # The owning team still sees everything of its own evaluations.
    own = client.get(f"/v1/evaluations/{public}/results", headers=team_a.read_only)
    assert REPLY in own.text and ASKED in own.text
