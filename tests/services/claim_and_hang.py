"""A scheduler that claims a tick and then hangs mid-transaction, for a test to kill (python -m …)."""

from __future__ import annotations

import sys
import time
from datetime import datetime

from sqlalchemy import create_engine
from sqlmodel import Session

from app.store.schedules import claim_tick


def main(url: str, schedule_id: str, tick: str, next_run_at: str) -> None:
    engine = create_engine(url)
    session = Session(engine)
    won = claim_tick(
        session=session,
        schedule_id=schedule_id,
        tick=datetime.fromisoformat(tick),
        next_run_at=datetime.fromisoformat(next_run_at),
    )
    print("claimed" if won else "lost", flush=True)
    time.sleep(3600)  # never commits: the test kills this process here


if __name__ == "__main__":
    main(*sys.argv[1:5])
