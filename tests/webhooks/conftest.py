"""An engine-side world for webhook tests: migrated SQLite, the engine's deps, one team with an evaluation."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sqlmodel import Session

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.store.keys import get_or_create_default_team
from app.store.migrate import upgrade
from app.store.models import Evaluation, Target, Webhook

MakeEvaluation = Callable[[], str]
MakeWebhook = Callable[..., tuple[str, str]]


@pytest.fixture
def hook_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"webhook_backoff_s": 0.01, "webhook_max_attempts": 3, "webhook_timeout_s": 5.0}
    )


@pytest.fixture
def deps(hook_settings: Settings) -> Iterator[Runtime]:
    upgrade(hook_settings)
    built = build_runtime(hook_settings)
    yield built
    built.engine.dispose()


@pytest.fixture
def team_id(deps: Runtime) -> str:
    with Session(deps.engine) as session:
        team = get_or_create_default_team(session=session)
        session.commit()
        return team.id


@pytest.fixture
def make_evaluation(deps: Runtime, team_id: str) -> Callable[[], str]:
    """A queued evaluation of nothing (total 0), so finishing it needs no items."""

    def make() -> str:
        with Session(deps.engine) as session:
            target = Target(
                team_id=team_id,
                name="bot",
                kind="openai_chat",
                base_url="http://127.0.0.1:9/v1",
                model="bot-1",
            )
            session.add(target)
            session.flush()
            evaluation = Evaluation(
                team_id=team_id,
                target_id=target.id,
                target_name="bot",
                model="bot-1",
                suite="quick",
                benchmark_version=deps.library.version,
                total=0,
            )
            session.add(evaluation)
            session.commit()
            return evaluation.id

    return make


@pytest.fixture
def make_webhook(deps: Runtime, team_id: str) -> Callable[..., tuple[str, str]]:
    """Subscribe url; returns (webhook id, whsec secret)."""
    from app.services.webhooks import new_secret

    def make(url: str, events: list[str] | None = None) -> tuple[str, str]:
        secret = new_secret()
        with Session(deps.engine) as session:
            hook = Webhook(
                team_id=team_id, url=url, events=events or [], signing_secret=deps.secrets.encrypt(secret)
            )
            session.add(hook)
            session.commit()
            return hook.id, secret

    return make
