"""An evaluation's items counted as they are written: a few rows per run that a poller sums, instead of a count
over every item of the run.

The rows are added to in the transaction that writes the items, from the rows that transaction actually
inserted (a key already stored adds nothing), so they stay equal to a count of the items; an erase removes them
with the items.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, delete, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from app.benchmark.verdicts import GRADED
from app.store.models import ItemTally

TALLY = ItemTally.__table__  # type: ignore[attr-defined]
# Items per slot: the default shard's size, so a shard's batches add to rows no other shard writes.
TALLY_SLOT = 500
_SUMMED = ("written", "graded", "passed", "retries")


@dataclass(frozen=True)
class Counts:
    """An evaluation's items written so far, by outcome."""

    written: int = 0
    failed: int = 0  # ended with an error
    graded: int = 0
    passed: int = 0
    retries: int = 0
    errors_by_class: dict[str, int] = field(default_factory=dict)


def add(conn: Connection, evaluation_id: str, inserted: Sequence[Mapping[str, Any]]) -> None:
    """Count item rows just inserted on `conn` (in its transaction) into the evaluation's tallies."""
    sums: dict[tuple[int, str], Counter[str]] = {}
    for row in inserted:
        verdict, attempts = row.get("verdict"), int(row.get("attempts") or 0)
        counter = sums.setdefault((int(row["idx"]) // TALLY_SLOT, row.get("error_class") or ""), Counter())
        counter["written"] += 1
        counter["graded"] += verdict in GRADED
        counter["passed"] += verdict == "PASS"
        counter["retries"] += max(attempts - 1, 0)
    if not sums:
        return
    values = [
        {"evaluation_id": evaluation_id, "slot": slot, "error_class": error, **{c: n[c] for c in _SUMMED}}
        for (slot, error), n in sorted(sums.items())  # one order for every writer: no deadlock between two
    ]
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(TALLY)
    upsert = stmt.on_conflict_do_update(
        index_elements=["evaluation_id", "slot", "error_class"],
        set_={c: TALLY.c[c] + stmt.excluded[c] for c in _SUMMED},
    )
    conn.execute(upsert, values)


def counts(*, session: Session, evaluation_id: str) -> Counts:
    """The evaluation's tallies summed: a few rows per 500 items, whatever the run's size."""
    t = ItemTally
    stmt = (
        select(
            t.error_class,
            func.sum(t.written),
            func.sum(t.graded),
            func.sum(t.passed),
            func.sum(t.retries),
        )
        .where(col(t.evaluation_id) == evaluation_id)
        .group_by(col(t.error_class))
    )
    written = failed = graded = passed = retries = 0
    errors: dict[str, int] = {}
    for error, n_written, n_graded, n_passed, n_retries in session.exec(stmt):
        written += int(n_written)
        graded += int(n_graded)
        passed += int(n_passed)
        retries += int(n_retries)
        if error:
            failed += int(n_written)
            errors[error] = int(n_written)
    return Counts(written, failed, graded, passed, retries, errors)


def drop(*, session: Session, evaluation_id: str) -> None:
    """The evaluation's tallies go with its items."""
    session.execute(delete(ItemTally).where(col(ItemTally.evaluation_id) == evaluation_id))
