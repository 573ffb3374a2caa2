"""Holding a served document to the schema /openapi.json publishes for it, as a generated client would."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
from fastapi.testclient import TestClient


def published_schema(openapi: dict[str, Any], path: str, method: str = "get", code: str = "200") -> Any:
    """The JSON schema of one operation's answer, with the components its references point into."""
    schema = openapi["paths"][path][method]["responses"][code]["content"]["application/json"]["schema"]
    return jsonschema_rs.Draft202012Validator({**schema, "components": openapi["components"]})


def misfits(openapi: dict[str, Any], path: str, document: Any) -> list[str]:
    """Where the document departs from its published schema (empty: it fits)."""
    validator = published_schema(openapi, path)
    return [
        f"/{'/'.join(map(str, e.instance_path))}: {e.message}"[:300] for e in validator.iter_errors(document)
    ]


def served_fits(client: TestClient, template: str, url: str) -> dict[str, Any]:
    """GETs url, asserts a 200 whose body fits the schema published for the template path, returns the body."""
    response = client.get(url)
    assert response.status_code == 200, response.text
    body = response.json()
    openapi = client.get("/openapi.json").json()
    assert misfits(openapi, template, body) == []
    return body
