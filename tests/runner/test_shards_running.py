"""Only the last of a run's shards in a process to end counts the run's items; the run still settles."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.runner import shard as shard_module
from app.runner.shards_running import ShardsRunning
from bench.harness import create_evaluation, make_deps, run_evaluation, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library


def test_of_two_shards_of_a_run_the_one_that_leaves_second_is_the_last() -> None:
    running = ShardsRunning()
    with (
        running.running("ev_a") as first,
        running.running("ev_a") as second,
        running.running("ev_b") as other,
    ):
        assert not first()  # the second is still running
        assert first() is False  # leaving twice counts once
        assert other()  # another run's shard is no company
        assert second()


def test_a_shard_that_raises_leaves_too() -> None:
    running = ShardsRunning()
    with pytest.raises(RuntimeError), running.running("ev_a"):
        raise RuntimeError("the shard failed")
    with running.running("ev_a") as alone:
        assert alone()


async def test_a_run_of_many_shards_in_one_process_is_counted_by_its_last_shards_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(var_dir=tmp_path / "var", target_allowlist="127.0.0.0/8", shard_size=10)
    deps = make_deps(settings, synthetic_library(conditions=4, perturbations=25))
    looked: list[str] = []
    finish = shard_module.finish_evaluation

    def counting(*args: object, **kwargs: object) -> str | None:
        looked.append("look")
        return finish(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(shard_module, "finish_evaluation", counting)
    async with running_mock(MockConfig(latency=0.01)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=8)
        outcomes = await run_evaluation(deps, evaluation, max_jobs=4)
    assert evaluation.shards == 10 and all("done" in o for o in outcomes), outcomes
    assert sum("evaluation succeeded" in o for o in outcomes) == 1
    result = written(deps, evaluation.id)
    assert result.rows == result.distinct_keys == 100 and result.status == "succeeded"
    # every shard used to count the run at its end; now only those that ended with no other shard running here
    assert 1 <= len(looked) <= 4, looked
