"""Item-level exports researchers load: one row per item, as CSV or Parquet, streamed a page at a time.

A row carries what the JSON results say of an item, flattened: its ids and the library's facets of it (country,
crisis category, pillar, behaviour), the verdict and 1-5 grade, the error class, every check as its own column
(pass / fail / not-applicable against what the scenario expects) and the reply as the JSON results give it (gone
where retention removed it, masked with `redact`). Memory stays bounded by a page whatever the evaluation's size:
CSV is written a page at a time, Parquet a row group a page.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from sqlalchemy import Engine

from app.benchmark.loader import Library
from app.grading.checks import CHECKS
from app.grading.grades.verdict import likert_view
from app.scoring.facets import Facet, build_facets, stored_item
from app.security.pii import Redactor
from app.store import items as item_store
from app.store.item_filter import ItemFilter
from app.store.models import EvaluationItem

CSV_MEDIA = "text/csv"
PARQUET_MEDIA = "application/vnd.apache.parquet"
MEDIA = {"csv": CSV_MEDIA, "parquet": PARQUET_MEDIA}

PASS, FAIL, NOT_APPLICABLE = "pass", "fail", "not-applicable"

# (column, Arrow type): the one list both formats follow, in order.
FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("key", pa.string()),
    ("index", pa.int64()),
    ("code", pa.string()),
    ("scenario", pa.string()),
    ("perturbation", pa.string()),
    ("condition", pa.string()),
    ("user_context", pa.string()),
    ("country", pa.string()),
    ("crisis_category", pa.string()),
    ("pillar", pa.string()),
    ("behavior", pa.string()),
    ("repeat", pa.int64()),
    ("verdict", pa.string()),
    ("likert_score", pa.float64()),
    ("likert_source", pa.string()),
    ("judge_score", pa.float64()),
    ("error_class", pa.string()),
    *((f"check_{name}", pa.string()) for name in CHECKS),
    ("reasons", pa.string()),
    ("reply", pa.string()),
)
COLUMNS: tuple[str, ...] = tuple(name for name, _ in FIELDS)
SCHEMA = pa.schema([pa.field(name, kind) for name, kind in FIELDS])

Row = tuple[Any, ...]


def _check_cell(facet: Facet | None, name: str) -> str | None:
    """pass or fail where the scenario expects something of the check and it was decided; None where the item's
    scenario is no longer in the library (nothing to judge it against)."""
    if facet is None:
        return None
    failed = facet.failed_checks.get(name)
    if failed is None:
        return NOT_APPLICABLE
    return FAIL if failed else PASS


def _row(row: EvaluationItem, facet: Facet | None, redactor: Redactor | None) -> Row:
    likert = likert_view(row.likert, row.score) or {}
    country = facet.country if facet else None
    reply, reasons = row.reply, "; ".join(row.reasons or [])
    if redactor is not None:  # a reason may quote what the reply gave (a personal number it found)
        reply = redactor.text(reply, country) if reply is not None else None
        reasons = redactor.text(reasons, country)
    return (
        row.key,
        row.idx,
        item_store.item_spec(row).code,
        row.scenario_id,
        row.perturbation_id,
        row.condition_id,
        row.user_context_id,
        country,
        facet.crisis_category if facet else None,
        facet.pillar if facet else None,
        facet.behavior if facet else None,
        row.repeat,
        row.verdict,
        likert.get("score"),
        likert.get("source"),
        row.score,
        row.error_class,
        *(_check_cell(facet, name) for name in CHECKS),
        reasons,
        reply,
    )


def export_rows(
    pages: Iterable[list[EvaluationItem]], library: Library, redactor: Redactor | None = None
) -> Iterator[list[Row]]:
    """Each page of items as export rows, in COLUMNS order; pages are read one at a time, as asked for."""
    for items in pages:
        facets = {f.key: f for f in build_facets((stored_item(r) for r in items), library)}
        yield [_row(r, facets.get(r.key), redactor) for r in items]


def item_rows(
    *,
    engine: Engine,
    evaluation_id: str,
    library: Library,
    where: ItemFilter | None = None,
    redactor: Redactor | None = None,
) -> Iterator[list[Row]]:
    """An evaluation's items `where` selects as export rows, a page at a time from the store."""
    return export_rows(item_store.item_pages(engine, evaluation_id, where), library, redactor)


def csv_chunks(pages: Iterable[list[Row]]) -> Iterator[str]:
    """A header, then each page's rows as CSV text: one chunk a page (a streamed response's body)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    for rows in pages:
        writer.writerows(rows)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


class _Drain:
    """A write-only sink for the Parquet writer that hands on what it was given and keeps only the count:
    the footer's offsets need the position, the bytes themselves are already on their way to the client."""

    closed = False

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._position = 0

    def write(self, data: bytes | memoryview) -> int:
        chunk = bytes(data)
        self._chunks.append(chunk)
        self._position += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self._position

    def flush(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    def take(self) -> bytes:
        taken, self._chunks = b"".join(self._chunks), []
        return taken


def parquet_chunks(pages: Iterable[list[Row]]) -> Iterator[bytes]:
    """The rows as one Parquet file, a row group per page, its bytes handed on as each group is written."""
    sink = _Drain()
    writer = pq.ParquetWriter(sink, SCHEMA, compression="zstd")
    try:
        for rows in pages:
            if rows:
                columns = list(zip(*rows, strict=True))
                writer.write_table(
                    pa.Table.from_arrays(list(map(pa.array, columns, SCHEMA.types)), schema=SCHEMA)
                )
            if chunk := sink.take():
                yield chunk
    finally:
        writer.close()
    yield sink.take()
