"""A leased pass: its holder makes it every period; a failing pass is logged and the loop goes on; stopping gives
the lease back."""

from __future__ import annotations

import structlog

from app.runner.leased import leased_forever
from app.runner.runtime import Runtime
from app.store.leases import hold_lease

LEASE = "test-pass"


async def test_the_holder_passes_survives_a_failing_pass_and_gives_the_lease_back(runtime: Runtime) -> None:
    passes: list[int] = []

    async def one_pass() -> float:
        passes.append(len(passes))
        if len(passes) == 1:
            raise RuntimeError("the database went away")
        if len(passes) == 3:
            runtime.stopping.set()
        return 0.01

    with structlog.testing.capture_logs() as logs:
        await leased_forever(
            runtime,
            LEASE,
            period=0.01,
            ttl=60,
            one_pass=one_pass,
            log=structlog.get_logger(),
            failed="failed",
        )
    assert passes == [0, 1, 2]
    assert [e["error"] for e in logs if e["event"] == "failed"] == ["RuntimeError: the database went away"]
    assert hold_lease(engine=runtime.engine, name=LEASE, holder="next", ttl_s=60)  # given back on the way out
