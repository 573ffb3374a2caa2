"""While the database is away the API says so: 503 problem+json with Retry-After, and /readyz names the cause."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
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
