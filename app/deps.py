"""FastAPI dependencies: settings, a DB session, the current API key and team, the engine's parts."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.benchmark.loader import Library
from app.config import Settings
from app.http.problems import Problem
from app.limits.api_rate import Limiter, RateLimiter, enforce_rate
from app.queue.base import JobQueue
from app.runner.runtime import Runtime
from app.security.secrets import SecretBox
from app.store.keys import find_active_key
from app.store.models import ApiKey, Team
from app.store.retry import is_transient
from app.store.roles import Role, at_least


@dataclass
class AppState:
    deps: Runtime
    queue: JobQueue
    limiter: Limiter = field(default_factory=RateLimiter)  # create_app picks Redis's in scale-out mode


def get_state(request: Request) -> AppState:
    return request.app.state.helmbench


def get_settings(state: Annotated[AppState, Depends(get_state)]) -> Settings:
    return state.deps.settings


@contextmanager
def closing_session(engine: Engine) -> Iterator[Session]:
    """A session that never raises on close: closing after the response may meet a connection the database
    dropped meanwhile; the connection is discarded either way, so that is not raised (it would reset the
    client's connection after its response, a 503 during an outage included)."""
    session = Session(engine)
    try:
        yield session
    finally:
        try:
            session.close()
        except SQLAlchemyError as exc:
            if not is_transient(exc):
                raise


def get_session(state: Annotated[AppState, Depends(get_state)]) -> Iterator[Session]:
    """A session for the request."""
    with closing_session(state.deps.engine) as session:
        yield session


def get_library(state: Annotated[AppState, Depends(get_state)]) -> Library:
    return state.deps.library


def get_secrets(state: Annotated[AppState, Depends(get_state)]) -> SecretBox:
    return state.deps.secrets


def get_queue(state: Annotated[AppState, Depends(get_state)]) -> JobQueue:
    return state.queue


_bearer = HTTPBearer(auto_error=False)


_READS = frozenset({"GET", "HEAD", "OPTIONS"})


def check_key(
    request: Request, state: AppState, session: Session, credentials: HTTPAuthorizationCredentials | None
) -> ApiKey:
    """The caller's key: unknown or revoked → 401, over its rate → 429 (503 if Redis, holding the rate, is
    unreachable), a read-only key writing → 403."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Problem(
            401,
            "Unauthorized",
            "Authorization: Bearer <key> is required",
            field="Authorization",
            headers={"WWW-Authenticate": "Bearer"},
        )
    key = find_active_key(session=session, raw=credentials.credentials)
    return admit_key(state, key, writes=request.method not in _READS)


def admit_key(state: AppState, key: ApiKey | None, *, writes: bool, field: str = "Authorization") -> ApiKey:
    """What every way in (a Bearer header, a page's sign-in, its session) checks of a key found: unknown or
    revoked → 401, over its rate → 429, a read-only key writing → 403."""
    if key is None:
        raise Problem(
            401,
            "Unauthorized",
            "the API key is unknown or revoked",
            field=field,
            headers={"WWW-Authenticate": "Bearer"},
        )
    enforce_rate(state.limiter, key.id, state.deps.settings)
    if key.role == "read-only" and writes:
        raise Problem(403, "Forbidden", "this key is read-only", field=field)
    return key


def _check_key_in_thread(
    request: Request, state: AppState, credentials: HTTPAuthorizationCredentials | None
) -> ApiKey:
    with closing_session(state.deps.engine) as session:
        return check_key(request, state, session, credentials)


async def get_current_key(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> ApiKey:
    """`check_key` in one thread-pool round trip (the lookup and the rate check, which may ask Redis).

    Async, with no sync dependencies of its own: each of those would be a round trip more on every
    authenticated request, and a crowd of pollers queues for the pool.
    """
    return await run_in_threadpool(_check_key_in_thread, request, get_state(request), credentials)


def require_role(role: Role) -> Callable[[ApiKey], Coroutine[Any, Any, ApiKey]]:
    """A dependency admitting keys of `role` or higher (read-only < member < admin)."""

    async def check(key: Annotated[ApiKey, Depends(get_current_key)]) -> ApiKey:  # async: no thread hop
        if not at_least(key.role, role):
            raise Problem(403, "Forbidden", f"this needs a {role!r} key or higher", field="Authorization")
        return key

    return check


def get_platform_admin(
    key: Annotated[ApiKey, Depends(require_role("admin"))],
    session: Annotated[Session, Depends(get_session)],
) -> ApiKey:
    """Admin keys of the platform team (the embedded default's first team) manage every team."""
    team = session.get(Team, key.team_id)
    if team is None or not team.platform:
        raise Problem(403, "Forbidden", "this needs a platform admin key", field="Authorization")
    return key


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
LibraryDep = Annotated[Library, Depends(get_library)]
SecretsDep = Annotated[SecretBox, Depends(get_secrets)]
QueueDep = Annotated[JobQueue, Depends(get_queue)]
CurrentKey = Annotated[ApiKey, Depends(get_current_key)]
MemberKey = Annotated[ApiKey, Depends(require_role("member"))]
AdminKey = Annotated[ApiKey, Depends(require_role("admin"))]
PlatformAdminKey = Annotated[ApiKey, Depends(get_platform_admin)]
