"""Reading results: pages in matrix order whose cursor never skips an item that arrives late, and a cursor the
API did not issue refused naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import respx
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, SQLModel

from app.config import Settings
from app.main import create_app
from app.services.results import results_page
from app.store.db import make_engine
from app.store.items import insert_items
from app.store.models import Evaluation
from tests.routers.conftest import TARGET_URL, careful_bot, make_target
from tests.store.conftest import item_row, seed
from tests.waits import settled


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = make_engine(Settings(var_dir=tmp_path))
    SQLModel.metadata.create_all(made)
    yield made
    made.dispose()


def _keys(engine: Engine, evaluation_id: str, cursor: str | None, limit: int) -> tuple[list[str], str | None]:
    with Session(engine) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        assert evaluation is not None
        page = results_page(session=session, evaluation=evaluation, cursor=cursor, limit=limit)
    return [item.key for item in page.items], page.next_cursor


def test_an_item_written_late_behind_the_cursor_is_still_read(engine: Engine) -> None:
    _, _, ev = seed(engine, total=4)
    insert_items(engine=engine, rows=[item_row(ev, i) for i in (0, 1, 3)])  # shard 2 is slower
    first, cursor = _keys(engine, ev, None, 2)
    assert (first, cursor) == (["k0", "k1"], "1")
    insert_items(engine=engine, rows=[item_row(ev, 2)])
    rest, end = _keys(engine, ev, cursor, 2)
    assert (rest, end) == (["k2", "k3"], None)


def test_a_full_last_page_says_there_is_no_next(engine: Engine) -> None:
    _, _, ev = seed(engine, total=2)
    insert_items(engine=engine, rows=[item_row(ev, i) for i in range(2)])
    assert _keys(engine, ev, None, 2) == (["k0", "k1"], None)


@pytest.fixture
def api(settings: Settings, mock_target: respx.MockRouter) -> Iterator[TestClient]:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        yield client


def test_pages_through_the_api_cover_every_item_once_and_a_foreign_cursor_is_422(api: TestClient) -> None:
    evaluation_id = api.post("/v1/evaluations", json={"target_id": make_target(api), "suite": "full"}).json()[
        "id"
    ]
    done = settled(api, evaluation_id)
    assert done["status"] == "succeeded"
    seen: list[int] = []
    cursor: str | None = None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = api.get(f"/v1/evaluations/{evaluation_id}/results", params=params).json()
        seen += [item["index"] for item in page["items"]]
        if (cursor := page["next_cursor"]) is None:
            break
    assert seen == sorted(set(seen)) and len(seen) == done["progress"]["total"]
    refused = api.get(f"/v1/evaluations/{evaluation_id}/results", params={"cursor": "not-a-cursor"})
    assert refused.status_code == 422 and refused.json()["field"] == "cursor"
