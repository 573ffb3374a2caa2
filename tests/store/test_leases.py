"""A named lease: one holder at a time, renewed by its holder, taken over once it lapses or is released."""

from __future__ import annotations

import threading

from sqlalchemy import Engine

from app.store.leases import hold_lease, release_lease
from tests.waits import eventually


def test_one_process_at_a_time_holds_the_reconciler_lease(engine: Engine) -> None:
    assert hold_lease(engine=engine, name="reconciler", holder="a", ttl_s=60)
    assert not hold_lease(engine=engine, name="reconciler", holder="b", ttl_s=60)
    assert hold_lease(engine=engine, name="reconciler", holder="a", ttl_s=60)  # renewed
    release_lease(engine=engine, name="reconciler", holder="a")
    assert hold_lease(engine=engine, name="reconciler", holder="b", ttl_s=60)


def test_a_release_by_someone_who_lost_the_lease_leaves_the_holder_in_place(sqlite: Engine) -> None:
    assert hold_lease(engine=sqlite, name="reconciler", holder="a", ttl_s=60)
    release_lease(engine=sqlite, name="reconciler", holder="b")
    assert not hold_lease(engine=sqlite, name="reconciler", holder="b", ttl_s=60)


def test_a_lapsed_lease_is_taken_over_and_the_old_holder_cannot_renew_it(engine: Engine) -> None:
    assert hold_lease(engine=engine, name="reconciler", holder="dead", ttl_s=0.1)
    eventually(lambda: hold_lease(engine=engine, name="reconciler", holder="b", ttl_s=60), what="a takeover")
    assert not hold_lease(engine=engine, name="reconciler", holder="dead", ttl_s=60)


def test_leases_of_different_names_are_held_apart(sqlite: Engine) -> None:
    assert hold_lease(engine=sqlite, name="reconciler", holder="a", ttl_s=60)
    assert hold_lease(engine=sqlite, name="scheduler", holder="b", ttl_s=60)


def test_racing_processes_leave_exactly_one_holder(engine: Engine) -> None:
    won: list[str] = []
    start = threading.Barrier(4)

    def ask(holder: str) -> None:
        start.wait()
        if hold_lease(engine=engine, name="reconciler", holder=holder, ttl_s=60):
            won.append(holder)

    threads = [threading.Thread(target=ask, args=(f"p{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1
