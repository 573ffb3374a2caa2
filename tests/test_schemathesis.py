"""Hostile input: schemathesis generates requests from our OpenAPI and sends them in-process (ASGI) to an app
on a temp SQLite var dir, authenticated with a real platform-admin key. No 5xx; every answer fits its schema.

Driven through schemathesis' hypothesis strategies (one @given per operation and generation mode) rather than
its pytest plugin, whose lazy fixture loader does not run on pytest 9. Negative cases include requests without
the key (401)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import hypothesis
import hypothesis.errors
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlmodel import Session

from app.config import Settings
from app.main import create_app
from app.store.db import make_engine
from app.store.keys import ensure_admin_key
from app.store.migrate import upgrade
from tests.conftest import write_mini_library

CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance]
EXAMPLES_PER_OPERATION_AND_MODE = 20
STREAMS = ("/events",)  # a live event stream does not end on its own


@schemathesis.serializer("application/x-ndjson", "application/jsonl")
def _jsonl(ctx, value):  # type: ignore[no-untyped-def]
    """A grade batch's body is text (its schema is a string): sent as UTF-8, whatever lines it holds."""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else str(value).encode()


def _settings(root: Path) -> Settings:
    """Rate limit off (thousands of requests come from one key); targets may only be public addresses."""
    return Settings(
        var_dir=root / "var",
        data_dir=write_mini_library(root),
        database_url=None,
        redis_url=None,
        target_allowlist="",
        rate_per_minute=0,
        max_retries=0,
        dns_timeout_s=0.5,
    )


def _admin_key(settings: Settings) -> str:
    upgrade(settings)
    engine = make_engine(settings)
    with Session(engine) as session:
        raw = ensure_admin_key(session=session, key_file=settings.admin_key_path)
        session.commit()
    engine.dispose()
    assert raw
    return raw


def _runner(
    strategy,
    headers: dict[str, str],
    counts: dict[str, int],
    statuses: Counter[int],  # type: ignore[no-untyped-def]
    label: str,
):
    """One hypothesis test for one operation and generation mode, counting its examples and answers."""

    @hypothesis.given(case=strategy)
    @hypothesis.settings(
        max_examples=EXAMPLES_PER_OPERATION_AND_MODE,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    def run(case) -> None:  # type: ignore[no-untyped-def]
        counts[label] = counts.get(label, 0) + 1
        statuses[case.call_and_validate(headers=headers, checks=CHECKS).status_code] += 1

    return run


def test_api_answers_every_generated_request_within_its_schema(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    headers = {"Authorization": f"Bearer {_admin_key(settings)}"}
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(settings))
    counts: dict[str, int] = {}
    failures: list[str] = []
    statuses: Counter[int] = Counter()
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path.endswith(STREAMS):
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            label = f"{operation.method.upper()} {operation.path} [{mode.value}]"

            try:
                _runner(operation.as_strategy(generation_mode=mode), headers, counts, statuses, label)()
            except hypothesis.errors.Unsatisfiable:
                continue  # nothing to make invalid: e.g. a negative case for an operation without inputs
            except Exception as exc:  # one operation's failure must not hide the others'
                failures.append(f"{label}: {str(exc)[:1500]}")
    total = sum(counts.values())
    print(
        f"\nschemathesis: {total} examples over {len(counts)} operation x mode pairs; "
        f"answers {dict(sorted(statuses.items()))}"
    )
    assert not failures, "\n\n".join(failures)
    assert len(counts) >= 30 and total >= 300
    assert statuses[200] + statuses[201] >= 50  # the key works: many requests got through to the handlers
