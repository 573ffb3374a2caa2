"""While the database is away the API says so: 503 problem+json with Retry-After, and /readyz names the cause."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.config import Settings
from app.deps import AppState, get_session
from app.main import create_app
from app.queue.inprocess import InProcessQueue
from app.runner.runtime import build_runtime
from app.store.migrate import upgrade
from bench.tcp_proxy import CuttablePostgres

pytestmark = pytest.mark.postgres


def test_an_outage_is_a_503_with_retry_after_and_then_it_is_over(
    settings: Settings, postgres_url: str, tmp_path: Path
) -> None:
    proxy = CuttablePostgres(postgres_url)
    on_postgres = settings.model_copy(update={"database_url": proxy.url})
    upgrade(on_postgres)
    try:
        with TestClient(create_app(on_postgres)) as client:
            client.headers["Authorization"] = f"Bearer {(settings.var_dir / 'admin.key').read_text().strip()}"
            assert client.get("/v1/evaluations").status_code == 200

            proxy.cut()
            down = client.get("/v1/evaluations")
            assert down.status_code == 503, down.text
            assert down.headers["content-type"] == "application/problem+json"
            assert down.headers["retry-after"] == "5"
            assert down.json()["title"] == "Service unavailable" and "database" in down.json()["detail"]
            ready = client.get("/readyz")
            assert ready.status_code == 503 and ready.headers["retry-after"]
            assert ready.json()["field"] == "database"
            assert ready.json()["detail"].startswith("database unreachable: OperationalError")

            proxy.restore()
            assert client.get("/v1/evaluations").status_code == 200
            assert client.get("/readyz").json()["database"] == "ok"
    finally:
        proxy.close()


def test_a_request_whose_connection_drops_still_ends_cleanly(settings: Settings, postgres_url: str) -> None:
    """The session's close after the response meets the dropped connection and does not raise."""
    proxy = CuttablePostgres(postgres_url)
    on_postgres = settings.model_copy(update={"database_url": proxy.url})
    deps = build_runtime(on_postgres)
    sessions = get_session(AppState(deps=deps, queue=InProcessQueue(deps)))
    try:
        session = next(sessions)
        session.execute(text("SELECT 1"))  # the request holds a live connection in a transaction
        proxy.cut()
        with pytest.raises(StopIteration):
            next(sessions)  # FastAPI closes the dependency like this once the response is out
    finally:
        proxy.close()
        deps.engine.dispose()
