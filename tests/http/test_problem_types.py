"""Each problem names its kind in `type`, one URI per kind, that the service itself documents."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.config import Settings
from app.http.problem_types import KINDS, TYPES, UNKNOWN_TYPE, problem_type
from app.main import create_app

README = Path(__file__).resolve().parents[2] / "README.md"


def test_kinds_are_one_per_status_and_slug() -> None:
    assert len({k.status for k in KINDS}) == len({k.slug for k in KINDS}) == len(KINDS)
    assert problem_type(401) == "/problems/unauthorized"
    assert problem_type(418) == UNKNOWN_TYPE


def test_answered_problems_carry_their_kind(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        key = (settings.var_dir / "admin.key").read_text().strip()
        auth = {"Authorization": f"Bearer {key}"}
        answers = {
            "/problems/unauthorized": client.get("/v1/targets"),
            "/problems/not-found": client.get("/v1/evaluations/ev_missing", headers=auth),
            "/problems/method-not-allowed": client.delete("/v1/benchmark"),
            "/problems/invalid-request": client.post("/v1/targets", json={"name": 1}, headers=auth),
            "/problems/bad-request": client.post(
                "/v1/targets",
                content=b'{"name": "\xff"}',
                headers=auth | {"content-type": "application/json"},
            ),
            "/problems/content-too-large": client.post(
                "/v1/targets", content=b"x" * (settings.max_body_bytes + 1), headers=auth
            ),
        }
    for expected, response in answers.items():
        assert response.headers["content-type"] == "application/problem+json", response.text
        assert response.json()["type"] == expected, (expected, response.status_code, response.text)


def test_each_type_leads_to_what_it_means(settings: Settings) -> None:
    client = TestClient(create_app(settings))
    listed = client.get("/problems").json()
    assert [k["type"] for k in listed] == TYPES
    for kind in KINDS:
        described = client.get(kind.type).json()  # a relative URI, resolved against the API's address
        assert described == {
            "type": kind.type,
            "title": kind.title,
            "status": kind.status,
            "meaning": kind.meaning,
        }
    missing = client.get("/problems/no-such-kind")
    assert missing.status_code == 404 and missing.json()["type"] == "/problems/not-found"


def test_the_schema_and_the_readme_list_every_kind(settings: Settings) -> None:
    problem = create_app(settings).openapi()["components"]["schemas"]["Problem"]
    assert problem["properties"]["type"]["enum"] == [*TYPES, UNKNOWN_TYPE]
    readme = README.read_text()
    assert all(f"`{kind.type}`" in readme for kind in KINDS), "README: the problem types table"
