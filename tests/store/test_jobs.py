"""The database job queue: a claim is won by one claimer, a lapsed lease is claimable again, a hand-back is
claimable at once, a finished job is gone; on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time

from sqlalchemy import Engine

from app.store import jobs


def shard_jobs(evaluation_id: str, shards: int) -> list[tuple[str, str, str, int]]:
    return [(f"{evaluation_id}:shard:{s}", "shard", evaluation_id, s) for s in range(shards)]


def test_jobs_are_queued_once_and_claimed_oldest_first(engine: Engine) -> None:
    assert jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_a", 2)) == 2
    assert jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_a", 3)) == 1  # only shard 2 is new
    first = jobs.claim_job(engine=engine, holder="w1", lease_s=30)
    second = jobs.claim_job(engine=engine, holder="w1", lease_s=30)
    assert first is not None and second is not None
    assert (first.subject_id, first.shard, second.shard) == ("ev_a", 0, 1)
    states = jobs.job_states(engine=engine, job_ids=[f"ev_a:shard:{s}" for s in range(4)])
    assert states == {"ev_a:shard:0": "running", "ev_a:shard:1": "running", "ev_a:shard:2": "queued"}
    assert jobs.job_count(engine=engine) == 3


def test_a_run_queued_behind_a_big_one_takes_every_other_place(engine: Engine) -> None:
    """Fair shares: the big run's shards were all queued first, yet the small run's interleave with them."""
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_big", 6))
    first = jobs.claim_job(engine=engine, holder="w1", lease_s=30)
    assert first is not None and first.id == "ev_big:shard:0"
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_small", 2))
    claimed = []
    while (job := jobs.claim_job(engine=engine, holder="w1", lease_s=30)) is not None:
        claimed.append(job.id)
    assert claimed[:4] == ["ev_big:shard:1", "ev_small:shard:0", "ev_big:shard:2", "ev_small:shard:1"]
    assert claimed[4:] == [f"ev_big:shard:{s}" for s in range(3, 6)]


def test_a_lost_shard_queued_again_is_taken_next(engine: Engine) -> None:
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_big", 4))
    jobs.enqueue_jobs(engine=engine, jobs=[("ev_lost:shard:7", "shard", "ev_lost", 7)])
    order = [job.id for job in iter(lambda: jobs.claim_job(engine=engine, holder="w1", lease_s=30), None)]
    assert order[:2] == ["ev_big:shard:0", "ev_lost:shard:7"]


def test_concurrent_claimers_never_win_the_same_job(engine: Engine) -> None:
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_b", 20))
    won: dict[str, list[str]] = {f"w{i}": [] for i in range(4)}

    def claim_all(holder: str) -> None:
        while (job := jobs.claim_job(engine=engine, holder=holder, lease_s=30)) is not None:
            won[holder].append(job.id)

    threads = [threading.Thread(target=claim_all, args=(holder,)) for holder in won]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    claimed = [job_id for ids in won.values() for job_id in ids]
    assert sorted(claimed) == sorted(job_id for job_id, *_ in shard_jobs("ev_b", 20))  # each exactly once


def test_a_lapsed_lease_is_claimed_by_another_and_the_old_holder_loses_it(engine: Engine) -> None:
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_c", 1))
    assert jobs.claim_job(engine=engine, holder="dead", lease_s=0.2) is not None
    assert jobs.claim_job(engine=engine, holder="w2", lease_s=30) is None  # held
    time.sleep(0.3)
    assert jobs.job_states(engine=engine, job_ids=["ev_c:shard:0"]) == {"ev_c:shard:0": "queued"}
    taken = jobs.claim_job(engine=engine, holder="w2", lease_s=30)
    assert taken is not None and taken.shard == 0
    assert not jobs.renew_job(engine=engine, job_id=taken.id, holder="dead", lease_s=30)
    jobs.finish_job(engine=engine, job_id=taken.id, holder="dead")  # not its job any more: no effect
    assert jobs.job_count(engine=engine) == 1
    assert jobs.renew_job(engine=engine, job_id=taken.id, holder="w2", lease_s=30)
    jobs.finish_job(engine=engine, job_id=taken.id, holder="w2")
    assert jobs.job_count(engine=engine) == 0
    assert jobs.claim_job(engine=engine, holder="w2", lease_s=30) is None


def test_a_handed_back_job_is_claimable_at_once_and_a_failed_one_after_its_delay(engine: Engine) -> None:
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_d", 2))
    first = jobs.claim_job(engine=engine, holder="w1", lease_s=30)
    second = jobs.claim_job(engine=engine, holder="w1", lease_s=30)
    assert first is not None and second is not None
    jobs.release_job(engine=engine, job_id=first.id, holder="w1")
    jobs.release_job(engine=engine, job_id=second.id, holder="w1", delay_s=0.5)
    again = jobs.claim_job(engine=engine, holder="w2", lease_s=30)
    assert again is not None and again.id == first.id
    assert jobs.claim_job(engine=engine, holder="w2", lease_s=30) is None  # the failed one waits
    time.sleep(0.6)
    later = jobs.claim_job(engine=engine, holder="w2", lease_s=30)
    assert later is not None and later.id == second.id


def test_a_newcomer_claim_skips_runs_whose_shards_are_held(engine: Engine) -> None:
    """A worker's spare place takes only a run none of whose shards is held (app/runner/shard_places.py)."""
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_big", 4))
    held = jobs.claim_job(engine=engine, holder="w1", lease_s=30)
    assert held is not None and held.subject_id == "ev_big"
    assert jobs.claim_job(engine=engine, holder="w1", lease_s=30, newcomer=True) is None
    jobs.enqueue_jobs(engine=engine, jobs=shard_jobs("ev_quick", 2))
    quick = jobs.claim_job(engine=engine, holder="w1", lease_s=30, newcomer=True)
    assert quick is not None and quick.id == "ev_quick:shard:0"
    assert (
        jobs.claim_job(engine=engine, holder="w1", lease_s=30, newcomer=True) is None
    )  # ev_quick is held now
