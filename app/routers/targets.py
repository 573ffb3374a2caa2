"""/v1/targets: a team's model endpoints."""

from __future__ import annotations

from typing import Annotated

import anyio.from_thread
from fastapi import APIRouter, Body, Response

from app.deps import CurrentKey, SecretsDep, SessionDep, SettingsDep
from app.errors import NotFound
from app.http.examples import CREATE_TARGET
from app.schemas import ProbeReport, TargetCreate, TargetPublic, TargetUpdate, TargetVersionPublic
from app.services.probes import probe_endpoints, prober, stored_target_endpoint
from app.services.targets import change_target, public_target, public_version, register_target
from app.store import targets as target_store

router = APIRouter(prefix="/v1/targets", tags=["targets"])


@router.post("", status_code=201, response_model=TargetPublic)
def create_target(
    body: Annotated[TargetCreate, Body(openapi_examples=CREATE_TARGET)],
    key: CurrentKey,
    session: SessionDep,
    settings: SettingsDep,
    secrets: SecretsDep,
    response: Response,
) -> TargetPublic:
    target = register_target(
        session=session,
        settings=settings,
        secrets=secrets,
        team_id=key.team_id,
        body=body,
        probe=prober(settings, body.probe),
    )
    session.commit()
    response.headers["Location"] = f"/v1/targets/{target.id}"
    return public_target(target, secrets)


@router.get("", response_model=list[TargetPublic])
def list_targets(key: CurrentKey, session: SessionDep, secrets: SecretsDep) -> list[TargetPublic]:
    return [
        public_target(t, secrets) for t in target_store.list_targets(session=session, team_id=key.team_id)
    ]


def _get(session: SessionDep, team_id: str, target_id: str):  # type: ignore[no-untyped-def]
    target = target_store.get_target(session=session, team_id=team_id, target_id=target_id)
    if target is None:
        raise NotFound("target_id", f"no target {target_id!r}")
    return target


@router.get("/{target_id}", response_model=TargetPublic)
def get_target(target_id: str, key: CurrentKey, session: SessionDep, secrets: SecretsDep) -> TargetPublic:
    return public_target(_get(session, key.team_id, target_id), secrets)


@router.patch("/{target_id}", response_model=TargetPublic)
def update_target(
    target_id: str,
    body: TargetUpdate,
    key: CurrentKey,
    session: SessionDep,
    settings: SettingsDep,
    secrets: SecretsDep,
) -> TargetPublic:
    """Changes the target as its next version; evaluations already created keep the version they ran with."""
    target = change_target(
        session=session,
        settings=settings,
        secrets=secrets,
        target=_get(session, key.team_id, target_id),
        body=body,
        probe=prober(settings, body.probe),
    )
    session.commit()
    return public_target(target, secrets)


@router.post("/{target_id}/probe", response_model=ProbeReport)
def probe_target(
    target_id: str, key: CurrentKey, session: SessionDep, settings: SettingsDep, secrets: SecretsDep
) -> ProbeReport:
    """Calls the target once as a run would and says whether and why it fails (200 either way)."""
    endpoint = stored_target_endpoint(_get(session, key.team_id, target_id), secrets, settings)
    session.close()  # nothing more to read: hold no connection while the call is out
    results = anyio.from_thread.run(probe_endpoints, settings, [endpoint])
    return ProbeReport(ok=all(r.ok for r in results), results=[r.public() for r in results])


@router.get("/{target_id}/versions", response_model=list[TargetVersionPublic])
def list_target_versions(
    target_id: str, key: CurrentKey, session: SessionDep, secrets: SecretsDep
) -> list[TargetVersionPublic]:
    target = _get(session, key.team_id, target_id)
    return [
        public_version(v, secrets) for v in target_store.list_versions(session=session, target_id=target.id)
    ]


@router.delete("/{target_id}", status_code=204)
def delete_target(target_id: str, key: CurrentKey, session: SessionDep) -> Response:
    target_store.delete_target(session=session, target=_get(session, key.team_id, target_id))
    session.commit()
    return Response(status_code=204)
