"""Two shards of one process ending together: one builds the report, and the settle is never lost."""

from __future__ import annotations

import threading

from app.runner.reports_in_progress import SettlingNow


def test_a_finisher_arriving_mid_settle_makes_the_settler_look_again() -> None:
    settling = SettlingNow()
    inside, go_on = threading.Event(), threading.Event()
    looks: list[str] = []

    def first_look() -> str | None:
        looks.append("first")
        if len(looks) == 1:
            inside.set()
            go_on.wait(10)
            return None  # the other shard's last items were not written yet when it looked
        return "stopped_by_budget"

    outcome: list[str | None] = []
    settler = threading.Thread(target=lambda: outcome.append(settling.settle("ev", first_look)))
    settler.start()
    assert inside.wait(10)
    # The second shard finishes now: it leaves the settle to the first, which must look again.
    assert settling.settle("ev", lambda: "never run") is None
    go_on.set()
    settler.join(10)
    assert outcome == ["stopped_by_budget"] and looks == ["first", "first"]


def test_a_lone_finisher_looks_once_and_lets_go() -> None:
    settling = SettlingNow()
    looks: list[int] = []
    assert settling.settle("ev", lambda: looks.append(1)) is None
    assert looks == [1]
    assert settling.settle("ev", lambda: "succeeded") == "succeeded"  # the evaluation is free again
