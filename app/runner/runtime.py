"""The process's runtime: what a job needs (settings, database engine, library, secrets, target sessions),
built once per process (the API in embedded mode, or a worker)."""

from __future__ import annotations

import asyncio
import gc
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from app.benchmark.loader import Library, load_library
from app.config import Settings
from app.grading.checks import CHECKS
from app.grading.checks.resources import resource_index
from app.runner.reports_in_progress import SettlingNow
from app.runner.sessions import TargetSessions
from app.runner.shard_places import ShardPlaces
from app.runner.shards_running import ShardsRunning
from app.runner.specs import SuiteSpecs
from app.security.secrets import SecretBox, secret_box_for
from app.shared_polls import SharedPolls
from app.store.db import make_engine

CANCEL_POLL_SECONDS = 0.5  # how soon a shard sees its evaluation cancelled


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    library: Library
    secrets: SecretBox
    targets: TargetSessions = field(default_factory=TargetSessions)
    specs: SuiteSpecs = field(default_factory=SuiteSpecs)
    # Set when the process is asked to stop: shards take no new item and hand back what they cannot finish.
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    # What the service does in the transaction that settles an evaluation (compare it with its baseline), called
    # with session, library and evaluation: given by the process, so the engine imports no service.
    on_settled: Callable[..., Any] | None = None
    # The shards taking items at once in this process (settings.worker_max_jobs).
    places: ShardPlaces = field(init=False)
    settling: SettlingNow = field(default_factory=SettlingNow)
    # One cancel poll per evaluation per period for all the shards of this process (app/shared_polls.py).
    cancel_polls: SharedPolls[bool] = field(default_factory=lambda: SharedPolls(CANCEL_POLL_SECONDS))
    # Which runs have shards in this process now: only the last of a run's shards here to end counts its items.
    shards_running: ShardsRunning = field(default_factory=ShardsRunning)

    def __post_init__(self) -> None:
        self.places = ShardPlaces(self.settings.worker_max_jobs)


def build_runtime(settings: Settings, on_settled: Callable[..., Any] | None = None) -> Runtime:
    library = load_library(settings.data_dir, known_checks=CHECKS.keys())
    return Runtime(
        settings=settings,
        engine=make_engine(settings),
        library=library,
        secrets=secret_box_for(settings),
        on_settled=on_settled,
    )


def warm_up(deps: Runtime) -> None:
    """What a worker does in a thread once it takes jobs: expand the largest suites (a first shard would wait
    ~0.1-0.25 s for it), build the index of the library's crisis lines that grading reads (its patterns: 0.05-0.2 s,
    in the event loop at the first grade otherwise, every call in flight waiting) and import the report's modules,
    NumPy and SciPy's special functions among them (~0.2 s), which the first shard to finish would otherwise
    import while holding the interpreter lock, stalling every call in flight."""
    deps.specs.warm(deps.library)
    resource_index(deps.library.countries)
    importlib.import_module("app.scoring.report")


def freeze_startup_heap() -> None:
    """Move what imports built (our modules, SciPy, NumPy, the ORM, pydantic) out of the collector's sight.

    Why: a long-running API or worker holds ~170,000 such objects for its whole life, and each full collection
    walks them all: two pauses of about 100 ms in a 3,000-item run (bench/runner_e2e.py), every connection
    stalled meanwhile; frozen, a full collection took 9 ms. Frozen objects
    are still freed by reference counting; only cycles among them would wait, and these live for the process.
    Called by `helmbench serve` and `helmbench worker` once imports are done, never by tests.
    """
    gc.collect()
    gc.freeze()
