"""FastAPI dependencies: settings, a DB session, the current API key and team, the engine's parts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.benchmark.loader import Library
from app.config import Settings
from app.problems import Problem
from app.queue.base import JobQueue
from app.runner.deps import EngineDeps
from app.security.limits import Limiter, RateLimiter, enforce_rate
from app.security.secrets import SecretBox
from app.store.keys import find_active_key
from app.store.models import ApiKey, Team
from app.store.retry import is_transient


@dataclass
class AppState:
    deps: EngineDeps
    queue: JobQueue
    limiter: Limiter = field(default_factory=RateLimiter)  # create_app picks Redis's in scale-out mode


def get_state(request: Request) -> AppState:
    return request.app.state.helmbench


def get_settings(state: Annotated[AppState, Depends(get_state)]) -> Settings:
    return state.deps.settings


def get_session(state: Annotated[AppState, Depends(get_state)]) -> Iterator[Session]:
    """A session for the request. Closing it after the response is sent may meet a connection the database
    dropped meanwhile: the connection is discarded either way, so that is not raised (it would reset the
    client's connection after its response, a 503 during an outage included)."""
    session = Session(state.deps.engine)
    try:
        yield session
    finally:
        try:
            session.close()
        except SQLAlchemyError as exc:
            if not is_transient(exc):
                raise


def get_library(state: Annotated[AppState, Depends(get_state)]) -> Library:
    return state.deps.library


def get_secrets(state: Annotated[AppState, Depends(get_state)]) -> SecretBox:
    return state.deps.secrets


def get_queue(state: Annotated[AppState, Depends(get_state)]) -> JobQueue:
    return state.queue


_bearer = HTTPBearer(auto_error=False)


_READS = frozenset({"GET", "HEAD", "OPTIONS"})
ROLE_RANK = {"read-only": 0, "member": 1, "admin": 2}


def get_current_key(
    request: Request,
    state: Annotated[AppState, Depends(get_state)],
    session: Annotated[Session, Depends(get_session)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
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
    if key is None:
        raise Problem(
            401,
            "Unauthorized",
            "the API key is unknown or revoked",
            field="Authorization",
            headers={"WWW-Authenticate": "Bearer"},
        )
    enforce_rate(state.limiter, key.id, state.deps.settings)
    if key.role == "read-only" and request.method not in _READS:
        raise Problem(403, "Forbidden", "this key is read-only", field="Authorization")
    return key


def require_role(role: str) -> Callable[[ApiKey], ApiKey]:
    """A dependency admitting keys of `role` or higher (read-only < member < admin)."""

    def check(key: Annotated[ApiKey, Depends(get_current_key)]) -> ApiKey:
        if ROLE_RANK.get(key.role, -1) < ROLE_RANK[role]:
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
