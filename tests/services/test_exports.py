"""The export writers: CSV and Parquet take a page of rows only when the stream asks for the next chunk, so an
export of any size holds a page at a time; and the rows come from the store in pages of bounded size."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import pyarrow.parquet as pq
import pytest

from app.runner.runtime import Runtime
from app.services.exports import COLUMNS, Row, csv_chunks, item_rows, parquet_chunks
from app.store.items import insert_items
from tests.store.conftest import item_row, seed


def _row(i: int) -> Row:
    values: dict[str, object] = dict.fromkeys(COLUMNS)
    values.update(key=f"k{i}", index=i, repeat=0, verdict="PASS", likert_score=4.0, reply=f"reply {i}")
    return tuple(values[c] for c in COLUMNS)


class Pages:
    """Pages of rows, counting how many the writer has taken so far."""

    def __init__(self, pages: int, size: int) -> None:
        self.taken = 0
        self.pages, self.size = pages, size

    def __iter__(self) -> Iterator[list[Row]]:
        for p in range(self.pages):
            self.taken += 1
            yield [_row(p * self.size + i) for i in range(self.size)]


@pytest.mark.parametrize("writer", [csv_chunks, parquet_chunks])
def test_writers_take_a_page_per_chunk_not_the_whole_source(writer: object) -> None:
    source = Pages(pages=50, size=100)
    stream = writer(source)  # type: ignore[operator]
    assert source.taken == 0  # nothing read before the response starts
    first = next(stream)
    assert first and source.taken == 1
    next(stream)
    assert source.taken == 2
    rest = list(stream)
    assert source.taken == 50 and rest


def test_parquet_is_one_file_a_row_group_per_page() -> None:
    body = b"".join(parquet_chunks(Pages(pages=3, size=7)))
    file = pq.ParquetFile(io.BytesIO(body))
    assert file.metadata.num_row_groups == 3 and file.metadata.num_rows == 21
    assert file.read().column("key").to_pylist() == [f"k{i}" for i in range(21)]


def test_csv_is_a_header_then_every_row() -> None:
    rows = list(csv.reader(io.StringIO("".join(csv_chunks(Pages(pages=2, size=3))))))
    assert rows[0] == list(COLUMNS) and [r[0] for r in rows[1:]] == [f"k{i}" for i in range(6)]


def test_an_empty_export_is_a_header_or_an_empty_table() -> None:
    assert list(csv.reader(io.StringIO("".join(csv_chunks([]))))) == [list(COLUMNS)]
    table = pq.read_table(io.BytesIO(b"".join(parquet_chunks([]))))
    assert table.num_rows == 0 and table.column_names == list(COLUMNS)


def test_store_rows_come_in_bounded_pages_with_the_librarys_facets(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.store.items.EXPORT_PAGE", 4)
    _, _, ev = seed(runtime.engine, total=10)
    insert_items(
        engine=runtime.engine,
        rows=[item_row(ev, i, user_context_id="P1-B1-S1-U1", verdict="PASS") for i in range(10)],
    )
    pages = list(item_rows(engine=runtime.engine, evaluation_id=ev, library=runtime.library))
    assert [len(p) for p in pages] == [4, 4, 2]
    first = dict(zip(COLUMNS, pages[0][0], strict=True))
    assert (first["country"], first["behavior"], first["crisis_category"]) == (
        "AU",
        "P1-B1",
        "suicidal_ideation",
    )
