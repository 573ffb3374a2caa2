"""The process runtime: built once from settings, it holds the configured library, database and secrets."""

from __future__ import annotations

import stat
from collections.abc import Iterator

import pytest

from app.benchmark.items import count_suite
from app.benchmark.loader import LibraryError, load_library
from app.config import Settings
from app.grading.checks import resources
from app.runner.runtime import Runtime, build_runtime, warm_up


@pytest.fixture
def deps(settings: Settings) -> Iterator[Runtime]:
    runtime = build_runtime(settings)
    yield runtime
    runtime.engine.dispose()


def test_the_runtime_serves_the_configured_library_on_the_embedded_database(deps: Runtime) -> None:
    assert deps.library.version == load_library(deps.settings.data_dir).version
    assert set(deps.library.scenarios) == {"P1-B1-S1", "P4-B1-S1"}
    assert deps.engine.url.database == str(deps.settings.var_dir / "helmbench.db")
    assert not deps.stopping.is_set() and deps.on_settled is None


def test_secrets_round_trip_under_a_key_kept_private_beside_the_database(
    settings: Settings, deps: Runtime
) -> None:
    sealed = deps.secrets.encrypt("sk-target-key")
    assert "sk-target-key" not in sealed and deps.secrets.decrypt(sealed) == "sk-target-key"
    key_file = settings.var_dir / "secret.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    again = build_runtime(settings)  # a restart reads the same key, so what was sealed still opens
    try:
        assert again.secrets.decrypt(sealed) == "sk-target-key"
    finally:
        again.engine.dispose()


def test_the_process_hook_for_a_settled_evaluation_is_kept(settings: Settings) -> None:
    def hook(*args: object) -> None:
        return None

    runtime = build_runtime(settings, on_settled=hook)
    try:
        assert runtime.on_settled is hook
    finally:
        runtime.engine.dispose()


def test_a_broken_library_stops_the_build_naming_its_file(settings: Settings) -> None:
    (settings.data_dir / "conditions.yaml").write_text("conditions:\n  - {id: plain}\n")
    with pytest.raises(LibraryError, match="conditions.yaml"):
        build_runtime(settings)


def test_a_warmed_up_runtime_has_its_largest_suite_expanded_for_the_first_shard(
    deps: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    largest = max(deps.library.suites, key=lambda name: count_suite(deps.library, name))
    assert deps.specs.cache == {}
    built: list[object] = []
    monkeypatch.setattr(resources, "ResourceIndex", lambda countries: built.append(countries) or object())
    monkeypatch.setattr(resources, "_CACHE", {})
    warm_up(deps)
    assert (deps.library.version, largest, 1) in deps.specs.cache
    assert built == [deps.library.countries]  # the first grade finds the crisis lines' index built
    resources.resource_index(deps.library.countries)
    assert len(built) == 1
