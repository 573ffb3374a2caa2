"""FastAPI dependencies: settings, a DB session, the current API key and team, the engine's parts."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session

from app.benchmark.loader import Library
from app.config import Settings
from app.problems import Problem
from app.queue.base import JobQueue
from app.runner.deps import EngineDeps
from app.security.secrets import SecretBox
from app.store.keys import find_active_key
from app.store.models import ApiKey


@dataclass
class AppState:
    deps: EngineDeps
    queue: JobQueue


def get_state(request: Request) -> AppState:
    return request.app.state.helmbench


def get_settings(state: Annotated[AppState, Depends(get_state)]) -> Settings:
    return state.deps.settings


def get_session(state: Annotated[AppState, Depends(get_state)]) -> Iterator[Session]:
    with Session(state.deps.engine) as session:
        yield session


def get_library(state: Annotated[AppState, Depends(get_state)]) -> Library:
    return state.deps.library


def get_secrets(state: Annotated[AppState, Depends(get_state)]) -> SecretBox:
    return state.deps.secrets


def get_queue(state: Annotated[AppState, Depends(get_state)]) -> JobQueue:
    return state.queue


_bearer = HTTPBearer(auto_error=False)


def get_current_key(
    session: Annotated[Session, Depends(get_session)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> ApiKey:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Problem(401, "Unauthorized", "Authorization: Bearer <key> is required", field="Authorization",
                      headers={"WWW-Authenticate": "Bearer"})
    key = find_active_key(session=session, raw=credentials.credentials)
    if key is None:
        raise Problem(401, "Unauthorized", "the API key is unknown or revoked", field="Authorization",
                      headers={"WWW-Authenticate": "Bearer"})
    return key


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
LibraryDep = Annotated[Library, Depends(get_library)]
SecretsDep = Annotated[SecretBox, Depends(get_secrets)]
QueueDep = Annotated[JobQueue, Depends(get_queue)]
CurrentKey = Annotated[ApiKey, Depends(get_current_key)]
