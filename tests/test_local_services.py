"""Tests find the local Redis and PostgreSQL by themselves, keep their own Redis database, and say why they skip."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis

from bench.ports import free_port
from tests import local_services
from tests.conftest import service_url

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Forget what this session found, and find again without the variables."""
    for name in (local_services.REDIS_VAR, local_services.POSTGRES_VAR):
        monkeypatch.delenv(name, raising=False)
    local_services.redis.cache_clear()
    local_services.postgres.cache_clear()
    yield
    local_services.redis.cache_clear()
    local_services.postgres.cache_clear()


def test_a_variable_wins(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(local_services.REDIS_VAR, "redis://elsewhere:6379/3")
    monkeypatch.setenv(local_services.POSTGRES_VAR, "postgresql://u@elsewhere/db")
    assert local_services.redis().url == "redis://elsewhere:6379/3"
    assert local_services.postgres().url == "postgresql://u@elsewhere/db"


def test_nothing_listening_gives_the_reason(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    monkeypatch.setattr(local_services, "LOCAL_REDIS", f"redis://127.0.0.1:{port}")
    monkeypatch.setattr(local_services, "LOCAL_POSTGRES", f"postgresql://postgres@127.0.0.1:{port}/postgres")
    redis, postgres = local_services.redis(), local_services.postgres()
    assert redis.url is None and f"no Redis answers at redis://127.0.0.1:{port}" in redis.why
    assert (
        postgres.url is None
        and f"no PostgreSQL answers at postgresql://postgres@127.0.0.1:{port}" in postgres.why
    )


@pytest.mark.redis
def test_each_run_claims_a_redis_database_of_its_own(fresh: None) -> None:
    from redis import Redis

    first = local_services.redis()
    if first.url is None:
        pytest.skip(first.why)
    local_services.redis.cache_clear()
    second = local_services.redis()  # as another run on the same machine would
    assert second.url is not None and second.url != first.url
    for found in (first, second):
        db = int(found.url.rpartition("/")[2])
        assert db in local_services.REDIS_DBS
        client = Redis.from_url(found.url)
        local_services._release(client, "another run's token")
        assert client.get(local_services.CLAIM_KEY) is not None  # a lapsed claim another run took stays
        local_services._release(client, client.get(local_services.CLAIM_KEY).decode())
        assert Redis.from_url(found.url).get(local_services.CLAIM_KEY) is None


def run_pytest(tmp_path: Path, *args: str, require: bool) -> subprocess.CompletedProcess[str]:
    """pytest in a subprocess whose local services are a port nobody listens on."""
    plugin = tmp_path / "no_local_services.py"
    port = free_port()
    plugin.write_text(
        "from tests import local_services\n"
        f"local_services.LOCAL_REDIS = 'redis://127.0.0.1:{port}'\n"
        f"local_services.LOCAL_POSTGRES = 'postgresql://postgres@127.0.0.1:{port}/postgres'\n"
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in (local_services.REDIS_VAR, local_services.POSTGRES_VAR)
    }
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    env["HELMBENCH_REQUIRE_SERVICES"] = "1" if require else "0"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no_local_services", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def skipped_in_totals(stdout: str) -> int:
    """The skips pytest's closing line counts: the summary must name each of them (no other test skips there)."""
    found = re.search(r"(\d+) skipped", stdout.splitlines()[-1])
    assert found, stdout[-3000:]
    return int(found.group(1))


def test_the_last_lines_say_how_many_skipped_and_why(tmp_path: Path) -> None:
    ran = run_pytest(tmp_path, "tests/limits/test_gcra.py", "tests/store/test_migrate.py", require=False)
    assert ran.returncode == 0, ran.stdout[-3000:]
    tail = ran.stdout.splitlines()[-6:]
    skipped = skipped_in_totals(ran.stdout)
    assert skipped >= 6, tail  # those files hold Redis and PostgreSQL tests; every one of them skipped here
    assert f"{skipped} tests needing Redis or PostgreSQL skipped" in "\n".join(tail), tail
    assert any("no Redis answers at" in line for line in tail), tail
    assert any("no PostgreSQL answers at" in line for line in tail), tail
    assert "skipped" in tail[-1]  # pytest's totals stay the closing line


def test_the_last_lines_count_the_skips_of_parallel_workers_too(tmp_path: Path) -> None:
    ran = run_pytest(
        tmp_path, "-n", "2", "tests/limits/test_gcra.py", "tests/store/test_migrate.py", require=False
    )
    assert ran.returncode == 0, ran.stdout[-3000:]
    skipped = skipped_in_totals(ran.stdout)
    assert skipped >= 6, ran.stdout[-3000:]
    assert f"{skipped} tests needing Redis or PostgreSQL skipped" in ran.stdout, ran.stdout[-3000:]


def test_ci_fails_on_such_a_skip(tmp_path: Path) -> None:
    ran = run_pytest(tmp_path, "tests/limits/test_gcra.py", require=True)
    assert ran.returncode == 1
    assert "HELMBENCH_REQUIRE_SERVICES=1 but the test skipped" in ran.stdout


@pytest.mark.redis
def test_parallel_workers_give_their_redis_database_back_when_the_run_ends(tmp_path: Path) -> None:
    """Each xdist worker claims a database; a run that never freed them would use up the local Redis's databases."""
    service_url(local_services.redis())  # skips (fails in CI) where no Redis answers
    seen = tmp_path / "seen"
    seen.mkdir()
    (tmp_path / "test_claims.py").write_text(
        "import pathlib, pytest, uuid\n"
        "from redis import Redis\n"
        "from tests import local_services\n"
        "@pytest.mark.parametrize('n', range(4))\n"
        "def test_claim(redis_url, n):\n"
        f"    held = Redis.from_url(redis_url).get(local_services.CLAIM_KEY).decode()\n"
        f"    pathlib.Path({str(seen)!r}, uuid.uuid4().hex).write_text(redis_url + ' ' + held)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != local_services.REDIS_VAR}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-n",
            "2",
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_claims.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    claims = {path.read_text() for path in seen.iterdir()}
    assert claims
    for claim in claims:
        url, token = claim.split(" ")
        assert Redis.from_url(url).get(local_services.CLAIM_KEY) != token.encode(), f"{url} still held"
