"""An evaluation's measured budget: guarded updates on its row, so shards on any number of workers share one.

Why reserve before a call: shards of one evaluation run at once on different workers, and only a guarded update
lets exactly as many items start as the caps allow. An item takes its planned share (calls, estimated tokens)
before its first call; once the target has answered, the share is trued up to the calls made and the tokens
reported; when its row is written, it stops counting as in flight (in the same transaction, so a run is known to
be over exactly when its last row is visible).
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, and_, or_, update
from sqlmodel import col

from app.store.models import Evaluation, utcnow


def reserve(*, engine: Engine, evaluation_id: str, calls: int, tokens: int) -> bool:
    """Take an item's share if both caps still allow it; False once they do not (or the budget has stopped)."""
    used_calls, used_tokens = col(Evaluation.calls_used), col(Evaluation.tokens_used)
    with engine.begin() as conn:
        taken = conn.execute(
            update(Evaluation)
            .where(
                col(Evaluation.id) == evaluation_id,
                col(Evaluation.budget_stopped_at).is_(None),
                or_(col(Evaluation.max_calls).is_(None), used_calls + calls <= col(Evaluation.max_calls)),
                or_(col(Evaluation.max_tokens).is_(None), used_tokens + tokens <= col(Evaluation.max_tokens)),
            )
            .values(
                calls_used=used_calls + calls,
                tokens_used=used_tokens + tokens,
                budget_in_flight=col(Evaluation.budget_in_flight) + 1,
            )
        )
    return bool(taken.rowcount)


def true_up(*, engine: Engine, evaluation_id: str, calls: int, tokens: int) -> None:
    """Replace an item's planned share by what it measured (the differences given may be negative)."""
    if calls == 0 and tokens == 0:
        return
    with engine.begin() as conn:
        conn.execute(
            update(Evaluation)
            .where(col(Evaluation.id) == evaluation_id)
            .values(
                calls_used=col(Evaluation.calls_used) + calls,
                tokens_used=col(Evaluation.tokens_used) + tokens,
            )
        )


def written(*, conn: Connection, evaluation_id: str, items: int) -> None:
    """Items that held a share are written: inside the transaction that writes them."""
    if items:
        conn.execute(
            update(Evaluation)
            .where(col(Evaluation.id) == evaluation_id)
            .values(budget_in_flight=col(Evaluation.budget_in_flight) - items)
        )


def stop(*, engine: Engine, evaluation_id: str) -> None:
    """The budget is spent: no item of the evaluation starts from now on (the first stop's time is kept)."""
    with engine.begin() as conn:
        conn.execute(
            update(Evaluation)
            .where(and_(col(Evaluation.id) == evaluation_id, col(Evaluation.budget_stopped_at).is_(None)))
            .values(budget_stopped_at=utcnow())
        )
