"""What a job needs, built once per process (API in embedded mode, or an arq worker)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine

from app.benchmark.loader import Library, load_library
from app.config import Settings
from app.grading.checks import CHECKS
from app.runner.sessions import TargetSessions
from app.runner.specs import SuiteSpecs
from app.security.secrets import SecretBox, secret_box_for
from app.store.db import make_engine


@dataclass
class EngineDeps:
    settings: Settings
    engine: Engine
    library: Library
    secrets: SecretBox
    targets: TargetSessions = field(default_factory=TargetSessions)
    specs: SuiteSpecs = field(default_factory=SuiteSpecs)


def build_deps(settings: Settings) -> EngineDeps:
    library = load_library(settings.data_dir, known_checks=CHECKS.keys())
    return EngineDeps(
        settings=settings, engine=make_engine(settings), library=library, secrets=secret_box_for(settings)
    )
