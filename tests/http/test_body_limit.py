"""Hostile bodies get clean 4xx problem+json: oversized (announced or streamed), non-UTF-8, malformed JSON."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi.testclient import TestClient

from tests.security.conftest import TeamKeys

PROBLEM = "application/problem+json"


def test_an_announced_oversized_body_is_413_before_it_is_read(client: TestClient, team_a: TeamKeys) -> None:
    answer = client.post(
        "/v1/targets", headers={**team_a.member, "content-type": "application/json"}, content=b" " * 1_000_001
    )
    assert answer.status_code == 413 and answer.headers["content-type"] == PROBLEM
    assert answer.json()["status"] == 413 and "1000000" in answer.json()["detail"]


def test_a_streamed_oversized_body_without_length_is_413(client: TestClient, team_a: TeamKeys) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b"x" * 50_000

    answer = client.post(
        "/v1/targets", headers={**team_a.member, "content-type": "application/json"}, content=chunks()
    )
    assert answer.status_code == 413 and answer.headers["content-type"] == PROBLEM
    assert client.get("/v1/targets", headers=team_a.member).json() == []


def test_a_body_within_the_limit_is_served(client: TestClient, team_a: TeamKeys) -> None:
    answer = client.post(
        "/v1/targets",
        headers=team_a.member,
        json={
            "name": "n" * 200,
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "params": {"pad": "p" * 500_000},
        },
    )
    assert answer.status_code == 201, answer.text[:300]


def test_a_non_utf8_json_body_is_400(client: TestClient, team_a: TeamKeys) -> None:
    answer = client.post(
        "/v1/targets",
        headers={**team_a.member, "content-type": "application/json"},
        content=b'{"name": "caf\xe9", "base_url": "http://127.0.0.1:9/v1", "model": "m"}',
    )
    assert answer.status_code == 400 and answer.headers["content-type"] == PROBLEM
    assert answer.json()["field"] == "body" and "UTF-8" in answer.json()["detail"]


def test_malformed_json_is_a_4xx_problem(client: TestClient, team_a: TeamKeys) -> None:
    for raw in (b'{"name": ', b"[1, 2", b"\x00\x01", b"{'single': 'quotes'}", b"", b"null", b"42"):
        answer = client.post(
            "/v1/targets", headers={**team_a.member, "content-type": "application/json"}, content=raw
        )
        assert 400 <= answer.status_code < 500 and answer.headers["content-type"] == PROBLEM, raw
        assert answer.json()["status"] == answer.status_code


def test_other_content_types_and_malformed_yaml_are_4xx_problems(
    client: TestClient, team_a: TeamKeys
) -> None:
    bodies = [
        ("text/plain", b"name=x"),
        ("application/yaml", b"name: [unclosed\n  base_url: {"),
        ("application/x-yaml", b"name: x\nbase_url: http://127.0.0.1:9/v1\nmodel: m\n"),
    ]
    for content_type, raw in bodies:
        answer = client.post(
            "/v1/targets", headers={**team_a.member, "content-type": content_type}, content=raw
        )
        assert 400 <= answer.status_code < 500 and answer.headers["content-type"] == PROBLEM, content_type
