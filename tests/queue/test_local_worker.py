"""`helmbench serve` on the embedded default runs shards and grade batches in its local worker process: through
the API a run or a batch completes there; Ctrl-C stops both and the next start resumes; a SIGKILLed worker is
replaced and its shards resumed, each item stored (each line graded) once."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from app.config import Settings
from app.store.db import make_engine
from app.store.models import EvaluationItem, QueuedJob
from bench.mockproc import mock_process
from bench.ports import free_port, wait_http
from bench.synthetic import synthetic_library, write_library
from tests.e2e.conftest import HELMBENCH, poll_until_done, running
from tests.routers.test_grade_batches import TRANSCRIPTS
from tests.waits import eventually

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

LEASE_S = 2.0


def children(pid: int) -> list[int]:
    """The live child processes of `pid` (Linux)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


class Deployment:
    """One embedded deployment's files and the `helmbench serve` environment for it."""

    def __init__(self, tmp_path: Path) -> None:
        self.var = tmp_path / "var"
        self.data = write_library(synthetic_library(conditions=6, perturbations=50), tmp_path / "data")  # 300
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            "HELMBENCH_VAR_DIR": str(self.var),
            "HELMBENCH_DATA_DIR": str(self.data),
            "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8",
            "HELMBENCH_SHARD_SIZE": "50",
            "HELMBENCH_SHARD_LEASE_S": str(LEASE_S),
            "HELMBENCH_STOP_GRACE_S": "2",
            "HELMBENCH_DATABASE_URL": "",
            "HELMBENCH_REDIS_URL": "",
            "HELMBENCH_LOCAL_WORKERS": "1",  # one, so a test knows which process writes; more where it says
        }
        self.args = [HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.engine = make_engine(Settings(var_dir=self.var))

    def api(self) -> httpx.Client:
        wait_http(f"{self.base}/readyz")  # ready once the local worker takes jobs
        key = (self.var / "admin.key").read_text().strip()
        return httpx.Client(base_url=self.base, headers={"Authorization": f"Bearer {key}"}, timeout=10)

    def start_run(self, api: httpx.Client, target_url: str) -> str:
        target = api.post(
            "/v1/targets",
            json={"name": "mock", "base_url": target_url, "model": "mock-model", "max_concurrency": 8},
        )
        assert target.status_code == 201, target.text
        started = api.post("/v1/evaluations", json={"target_id": target.json()["id"], "suite": "quick"})
        assert started.status_code == 202, started.text
        return started.json()["id"]

    def rows(self, evaluation_id: str) -> tuple[int, int]:
        """Rows written and distinct keys among them."""
        where = EvaluationItem.evaluation_id == evaluation_id
        with Session(self.engine) as session:
            rows = session.exec(select(func.count()).select_from(EvaluationItem).where(where)).one()
            keys = session.exec(select(func.count(func.distinct(EvaluationItem.key))).where(where)).one()
        return int(rows), int(keys)

    def jobs(self) -> list[QueuedJob]:
        with Session(self.engine) as session:
            return list(session.exec(select(QueuedJob)))


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    made = Deployment(tmp_path)
    yield made
    made.engine.dispose()


def test_ctrl_c_stops_both_processes_and_the_next_start_finishes_the_run(
    tmp_path: Path, deployment: Deployment
) -> None:
    log = tmp_path / "api.log"
    with mock_process(latency=0.3) as mock:
        with running(deployment.args, deployment.env, log) as serve, deployment.api() as api:
            evaluation_id = deployment.start_run(api, mock + "/v1")
            eventually(lambda: deployment.rows(evaluation_id)[0] >= 40, what="items written", timeout=60)
            [worker] = children(serve.pid)  # one local worker, and it is what writes
            os.kill(serve.pid, signal.SIGINT)
            assert serve.wait(30) == 0
            eventually(lambda: not alive(worker), what="the local worker to exit", timeout=10)
        stopped_at = deployment.rows(evaluation_id)
        assert stopped_at[0] == stopped_at[1] < 300
        # handed back, not left under a lease: the next start claims them at once
        assert deployment.jobs() and all(job.holder is None for job in deployment.jobs())
        assert "job handed back" in log.read_text()

        with running(deployment.args, deployment.env, tmp_path / "api2.log"), deployment.api() as api:
            done = poll_until_done(api, evaluation_id, timeout=120)
    assert done["status"] == "succeeded", done
    assert deployment.rows(evaluation_id) == (300, 300)
    assert deployment.jobs() == []  # a finished job leaves no row
    assert '"job finished"' in (tmp_path / "api2.log").read_text()


def test_a_sigkilled_local_worker_is_replaced_and_its_shards_resume_each_item_once(
    tmp_path: Path, deployment: Deployment
) -> None:
    log = tmp_path / "api.log"
    with (
        mock_process(latency=0.3) as mock,
        running(deployment.args, deployment.env, log) as serve,
        deployment.api() as api,
    ):
        evaluation_id = deployment.start_run(api, mock + "/v1")
        eventually(lambda: deployment.rows(evaluation_id)[0] >= 40, what="items written", timeout=60)
        [victim] = children(serve.pid)
        os.kill(victim, signal.SIGKILL)
        killed = deployment.rows(evaluation_id)[0]
        assert killed < 300
        eventually(
            lambda: children(serve.pid) not in ([], [victim]),
            what="serve to start another worker",
            timeout=30,
        )
        done = poll_until_done(api, evaluation_id, timeout=120)
        assert done["status"] == "succeeded", done
        assert done["progress"]["done"] == 300
        # the API stayed up throughout; the replacement resumed what the victim held once its leases lapsed
        assert serve.poll() is None
    assert deployment.rows(evaluation_id) == (300, 300), log.read_text()[-3000:]
    assert "local worker exited; starting another" in log.read_text()


def test_a_local_worker_whose_serve_was_sigkilled_hands_its_jobs_back_and_exits(
    tmp_path: Path, deployment: Deployment
) -> None:
    log = tmp_path / "api.log"
    with mock_process(latency=0.3) as mock, running(deployment.args, deployment.env, log) as serve:
        with deployment.api() as api:
            evaluation_id = deployment.start_run(api, mock + "/v1")
        eventually(lambda: deployment.rows(evaluation_id)[0] >= 20, what="items written", timeout=60)
        [worker] = children(serve.pid)
        os.kill(serve.pid, signal.SIGKILL)
        serve.wait(10)
        eventually(lambda: not alive(worker), what="the orphaned worker to exit", timeout=30)
    assert "the serving process is gone; stopping" in log.read_text()
    assert all(job.holder is None for job in deployment.jobs())  # claimable at once by the next start
    rows, keys = deployment.rows(evaluation_id)
    assert rows == keys < 300


BATCH_LINES = 12_000
GRADE_SETTINGS = {
    "HELMBENCH_GRADE_BATCH_SHARD_LINES": "4000",
    "HELMBENCH_GRADE_BATCH_CHUNK_LINES": "200",
    "HELMBENCH_RATE_PER_MINUTE": "0",  # polled often, to catch the batch mid-way
}


def upload_batch(api: httpx.Client) -> str:
    """A 12,000-line batch (the grade router tests' transcripts, repeated) and one line that is not JSON."""
    lines = [json.dumps(TRANSCRIPTS[n % len(TRANSCRIPTS)]) for n in range(BATCH_LINES)]
    lines.insert(BATCH_LINES // 2, "{not json")
    response = api.post(
        "/v1/grade/batches",
        content="\n".join(lines).encode(),
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert response.status_code == 202, response.text
    return response.json()["id"]


def batch(api: httpx.Client, batch_id: str) -> dict[str, Any]:
    return api.get(f"/v1/grade/batches/{batch_id}").json()


def assert_graded_once(api: httpx.Client, batch_id: str) -> None:
    """Every line graded once (a line graded twice would be counted twice), read back through the API."""
    done = eventually(
        lambda: batch(api, batch_id), lambda b: b["status"] == "succeeded", what="the batch", timeout=180
    )
    assert (done["lines"], done["graded"], done["bad"]) == (BATCH_LINES + 1, BATCH_LINES, 1)
    with api.stream("GET", f"/v1/grade/batches/{batch_id}/events") as stream:
        assert "event: end" in "".join(stream.iter_text())
    page = api.get(f"/v1/grade/batches/{batch_id}/results", params={"limit": 4}).json()["items"]
    assert [r["result"] for r in page] == [api.post("/v1/grade", json=t).json() for t in TRANSCRIPTS]
    errors = api.get(f"/v1/grade/batches/{batch_id}/errors").json()["items"]
    assert [e["line"] for e in errors] == [BATCH_LINES // 2 + 1]
    assert api.get(f"/v1/grade/batches/{batch_id}/report").json()["n_items"] == BATCH_LINES
    export = api.get(f"/v1/grade/batches/{batch_id}/export", params={"format": "jsonl"}, timeout=60)
    assert len(export.text.splitlines()) == BATCH_LINES


def test_a_grade_batch_is_graded_by_the_local_worker_and_a_sigkilled_one_resumes_it(
    tmp_path: Path, deployment: Deployment
) -> None:
    log = tmp_path / "api.log"
    env = {**deployment.env, **GRADE_SETTINGS}
    with running(deployment.args, env, log) as serve, deployment.api() as api:
        [victim] = children(serve.pid)
        batch_id = upload_batch(api)
        eventually(lambda: batch(api, batch_id)["graded"] > 0, what="grades written", timeout=60, every=0.05)
        os.kill(victim, signal.SIGKILL)  # the worker grades; the API only stored the upload
        assert batch(api, batch_id)["graded"] < BATCH_LINES
        eventually(
            lambda: children(serve.pid) not in ([], [victim]),
            what="serve to start another worker",
            timeout=30,
        )
        assert_graded_once(api, batch_id)
        assert serve.poll() is None
    assert "local worker exited; starting another" in log.read_text()
    assert deployment.jobs() == []


def test_ctrl_c_hands_a_grade_batch_back_and_the_next_start_finishes_it(
    tmp_path: Path, deployment: Deployment
) -> None:
    env = {**deployment.env, **GRADE_SETTINGS}
    with running(deployment.args, env, tmp_path / "api.log") as serve, deployment.api() as api:
        [worker] = children(serve.pid)
        batch_id = upload_batch(api)
        eventually(lambda: batch(api, batch_id)["graded"] > 0, what="grades written", timeout=60, every=0.05)
        os.kill(serve.pid, signal.SIGINT)
        assert serve.wait(30) == 0
        eventually(lambda: not alive(worker), what="the local worker to exit", timeout=10)
    assert deployment.jobs() and all(job.holder is None for job in deployment.jobs())
    with running(deployment.args, env, tmp_path / "api2.log"), deployment.api() as api:
        assert_graded_once(api, batch_id)
    assert deployment.jobs() == []


def test_two_local_workers_share_a_run_and_together_keep_the_targets_concurrency(
    tmp_path: Path, deployment: Deployment
) -> None:
    log = tmp_path / "api.log"
    env = {**deployment.env, "HELMBENCH_LOCAL_WORKERS": "2"}
    with mock_process(latency=0.3) as mock:
        with running(deployment.args, env, log) as serve, deployment.api() as api:
            evaluation_id = deployment.start_run(api, mock + "/v1")  # max_concurrency 8
            workers = eventually(lambda: children(serve.pid), until=lambda pids: len(pids) == 2)
            eventually(
                lambda: {job.holder for job in deployment.jobs() if job.holder},
                until=lambda holders: len(holders) == 2,
                what="both workers to hold shards of the run",
                timeout=60,
            )
            done = poll_until_done(api, evaluation_id, timeout=120)
            os.kill(serve.pid, signal.SIGINT)
            assert serve.wait(30) == 0
            for worker in workers:
                eventually(
                    lambda worker=worker: not alive(worker), what="each local worker to exit", timeout=10
                )
        peak = httpx.get(f"{mock}/stats").json()["max_in_flight"]
    assert done["status"] == "succeeded", done
    assert deployment.rows(evaluation_id) == (300, 300)
    assert 0 < peak <= 8, "the two workers together stay within the target's max_concurrency"


def test_a_run_queued_while_a_big_one_holds_every_place_runs_on_the_spare_place(
    tmp_path: Path, deployment: Deployment
) -> None:
    """Both of the worker's places hold shards of a run whose every call waits: another run still runs to its
    end, on the place the worker keeps for a run that holds none (app/runner/shard_places.py)."""
    env = {**deployment.env, "HELMBENCH_WORKER_MAX_JOBS": "2"}
    with (
        mock_process(latency=0.01, hold_after=0) as stuck,
        mock_process(latency=0.01) as quick,
        running(deployment.args, env, tmp_path / "api.log"),
        deployment.api() as api,
    ):
        big_id = deployment.start_run(api, stuck + "/v1")
        eventually(
            lambda: [job for job in deployment.jobs() if job.holder],
            until=lambda held: len(held) == 2,
            what="the big run's shards to hold both places",
            timeout=60,
        )
        small_id = deployment.start_run(api, quick + "/v1")
        done = poll_until_done(api, small_id, timeout=120)
        big, big_rows = api.get(f"/v1/evaluations/{big_id}").json(), deployment.rows(big_id)
        httpx.post(f"{stuck}/release")
    assert done["status"] == "succeeded", done
    assert deployment.rows(small_id) == (300, 300)
    assert big["status"] == "running" and big_rows == (0, 0), "the big run's calls were all held"
