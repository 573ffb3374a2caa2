"""The call-time guard: a target admitted at registration is still refused when it is called, if the allowlist
no longer admits its address; the refused endpoint never sees a request."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.security.conftest import bearer
from tests.waits import settled


class _Counting(BaseHTTPRequestHandler):
    hits = 0

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        type(self).hits += 1
        self.send_response(500)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def loopback_target() -> Iterator[tuple[str, type[_Counting]]]:
    handler = type("Handler", (_Counting,), {"hits": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    finally:
        server.shutdown()
        server.server_close()


def test_a_registered_loopback_target_is_refused_once_the_allowlist_drops_it(
    settings: Settings, loopback_target: tuple[str, type[_Counting]]
) -> None:
    url, handler = loopback_target
    with TestClient(create_app(settings)) as client:  # loopback allowed: registration passes
        admin = bearer(settings.admin_key_path.read_text().strip())
        made = client.post("/v1/targets", headers=admin, json={"name": "t", "base_url": url, "model": "m"})
        assert made.status_code == 201
        target_id = made.json()["id"]

    strict = settings.model_copy(update={"target_allowlist": ""})
    with TestClient(create_app(strict)) as client:
        started = client.post("/v1/evaluations", headers=admin, json={"target_id": target_id})
        assert started.status_code == 202
        evaluation_id = started.json()["id"]
        body = settled(client, evaluation_id, headers=admin)
        items = client.get(f"/v1/evaluations/{evaluation_id}/results", headers=admin).json()["items"]
    assert body["status"] == "failed" and items
    assert all(i["error_class"] == "target_error" and "refused" in i["error"] for i in items), items[0]
    assert handler.hits == 0
